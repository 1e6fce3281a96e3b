"""The store of trips."""

from __future__ import annotations

from fleetops.models.trip import FIELDS, Trip
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class TripStore(InMemoryStore[Trip]):
    kind = "trip"

    def by_route(self, route_id: str) -> list[Trip]:
        return self.find(route_id=route_id)

    def by_driver(self, driver_id: str) -> list[Trip]:
        return self.find(driver_id=driver_id)

    def by_vehicle(self, vehicle_id: str) -> list[Trip]:
        return self.find(vehicle_id=vehicle_id)

    def between(self, start: str | None, end: str | None) -> list[Trip]:
        """Trip records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def with_status(self, status: str) -> list[Trip]:
        return self.find(status=status)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Trip]:
        """All trips ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Trip has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Trip]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Trip | None:
        """The trip with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Trip]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = TripStore(records)
        self._records = fresh._records
