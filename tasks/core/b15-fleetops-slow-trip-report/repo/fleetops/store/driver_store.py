"""The store of drivers."""

from __future__ import annotations

from fleetops.models.driver import FIELDS, Driver
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class DriverStore(InMemoryStore[Driver]):
    kind = "driver"

    def with_license_class(self, license_class: str) -> list[Driver]:
        return self.find(license_class=license_class)

    def by_depot(self, depot_id: str) -> list[Driver]:
        return self.find(depot_id=depot_id)

    def between(self, start: str | None, end: str | None) -> list[Driver]:
        """Driver records whose hired is within [start, end]."""
        return [r for r in self if in_range(r.hired, start, end)]

    def active(self) -> list[Driver]:
        return self.find(active=True)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Driver]:
        """All drivers ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Driver has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Driver]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Driver | None:
        """The driver with the greatest hired (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Driver]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = DriverStore(records)
        self._records = fresh._records
