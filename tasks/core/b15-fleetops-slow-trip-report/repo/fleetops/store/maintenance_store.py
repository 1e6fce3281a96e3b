"""The store of maintenances."""

from __future__ import annotations

from fleetops.models.maintenance import FIELDS, Maintenance
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class MaintenanceStore(InMemoryStore[Maintenance]):
    kind = "maintenance"

    def by_vehicle(self, vehicle_id: str) -> list[Maintenance]:
        return self.find(vehicle_id=vehicle_id)

    def by_depot(self, depot_id: str) -> list[Maintenance]:
        return self.find(depot_id=depot_id)

    def between(self, start: str | None, end: str | None) -> list[Maintenance]:
        """Maintenance records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def with_kind(self, kind: str) -> list[Maintenance]:
        return self.find(kind=kind)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Maintenance]:
        """All maintenances ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Maintenance has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Maintenance]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Maintenance | None:
        """The maintenance with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Maintenance]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = MaintenanceStore(records)
        self._records = fresh._records
