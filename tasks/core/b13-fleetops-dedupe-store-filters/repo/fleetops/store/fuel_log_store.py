"""The store of fuel_logs."""

from __future__ import annotations

from typing import Any

from fleetops.models.fuel_log import FIELDS, FuelLog
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


def _matches(record: object, filters: dict[str, Any]) -> bool:
    """True if every filter names a field of the record whose value equals it."""
    for key, wanted in filters.items():
        if not hasattr(record, key):
            raise AttributeError(f"{type(record).__name__} has no field {key!r}")
        if getattr(record, key) != wanted:
            return False
    return True


class FuelLogStore(InMemoryStore[FuelLog]):
    kind = "fuel_log"

    def by_vehicle(self, vehicle_id: str) -> list[FuelLog]:
        return [r for r in self if _matches(r, {"vehicle_id": vehicle_id})]

    def between(self, start: str | None, end: str | None) -> list[FuelLog]:
        """FuelLog records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[FuelLog]:
        """All fuel_logs ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"FuelLog has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[FuelLog]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> FuelLog | None:
        """The fuel_log with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[FuelLog]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = FuelLogStore(records)
        self._records = fresh._records

    def where(self, **filters: Any) -> list[FuelLog]:
        """Records matching every filter (field=value)."""
        return [r for r in self if _matches(r, filters)]
