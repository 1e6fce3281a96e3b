"""The store of tolls."""

from __future__ import annotations

from fleetops.models.toll import FIELDS, Toll
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class TollStore(InMemoryStore[Toll]):
    kind = "toll"

    def by_trip(self, trip_id: str) -> list[Toll]:
        return self.find(trip_id=trip_id)

    def between(self, start: str | None, end: str | None) -> list[Toll]:
        """Toll records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Toll]:
        """All tolls ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Toll has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Toll]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Toll | None:
        """The toll with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Toll]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = TollStore(records)
        self._records = fresh._records
