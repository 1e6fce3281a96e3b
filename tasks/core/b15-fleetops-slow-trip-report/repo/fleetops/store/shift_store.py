"""The store of shifts."""

from __future__ import annotations

from fleetops.models.shift import FIELDS, Shift
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class ShiftStore(InMemoryStore[Shift]):
    kind = "shift"

    def by_driver(self, driver_id: str) -> list[Shift]:
        return self.find(driver_id=driver_id)

    def between(self, start: str | None, end: str | None) -> list[Shift]:
        """Shift records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Shift]:
        """All shifts ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Shift has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Shift]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Shift | None:
        """The shift with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Shift]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = ShiftStore(records)
        self._records = fresh._records
