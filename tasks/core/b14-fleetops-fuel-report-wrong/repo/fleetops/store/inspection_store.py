"""The store of inspections."""

from __future__ import annotations

from fleetops.models.inspection import FIELDS, Inspection
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class InspectionStore(InMemoryStore[Inspection]):
    kind = "inspection"

    def by_vehicle(self, vehicle_id: str) -> list[Inspection]:
        return self.find(vehicle_id=vehicle_id)

    def between(self, start: str | None, end: str | None) -> list[Inspection]:
        """Inspection records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def with_result(self, result: str) -> list[Inspection]:
        return self.find(result=result)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Inspection]:
        """All inspections ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Inspection has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Inspection]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Inspection | None:
        """The inspection with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Inspection]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = InspectionStore(records)
        self._records = fresh._records
