"""The store of vehicles."""

from __future__ import annotations

from typing import Any

from fleetops.models.vehicle import FIELDS, Vehicle
from fleetops.store.base import InMemoryStore


def _matches(record: object, filters: dict[str, Any]) -> bool:
    """True if every filter names a field of the record whose value equals it."""
    for key, wanted in filters.items():
        if not hasattr(record, key):
            raise AttributeError(f"{type(record).__name__} has no field {key!r}")
        if getattr(record, key) != wanted:
            return False
    return True


class VehicleStore(InMemoryStore[Vehicle]):
    kind = "vehicle"

    def by_depot(self, depot_id: str) -> list[Vehicle]:
        return [r for r in self if _matches(r, {"depot_id": depot_id})]

    def with_odometer_unit(self, odometer_unit: str) -> list[Vehicle]:
        return [r for r in self if _matches(r, {"odometer_unit": odometer_unit})]

    def active(self) -> list[Vehicle]:
        return [r for r in self if _matches(r, {"active": True})]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Vehicle]:
        """All vehicles ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Vehicle has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Vehicle]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Vehicle | None:
        """The vehicle with the greatest plate (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Vehicle]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = VehicleStore(records)
        self._records = fresh._records

    def where(self, **filters: Any) -> list[Vehicle]:
        """Records matching every filter (field=value)."""
        return [r for r in self if _matches(r, filters)]
