"""The store of incidents."""

from __future__ import annotations

from fleetops.models.incident import FIELDS, Incident
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class IncidentStore(InMemoryStore[Incident]):
    kind = "incident"

    def by_vehicle(self, vehicle_id: str) -> list[Incident]:
        return self.find(vehicle_id=vehicle_id)

    def by_driver(self, driver_id: str) -> list[Incident]:
        return self.find(driver_id=driver_id)

    def between(self, start: str | None, end: str | None) -> list[Incident]:
        """Incident records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def with_severity(self, severity: str) -> list[Incident]:
        return self.find(severity=severity)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Incident]:
        """All incidents ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Incident has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Incident]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Incident | None:
        """The incident with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Incident]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = IncidentStore(records)
        self._records = fresh._records
