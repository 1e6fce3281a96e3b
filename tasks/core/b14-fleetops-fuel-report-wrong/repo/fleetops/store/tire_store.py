"""The store of tires."""

from __future__ import annotations

from fleetops.models.tire import FIELDS, Tire
from fleetops.store.base import InMemoryStore
from fleetops.util.dates import in_range


class TireStore(InMemoryStore[Tire]):
    kind = "tire"

    def by_vehicle(self, vehicle_id: str) -> list[Tire]:
        return self.find(vehicle_id=vehicle_id)

    def with_position(self, position: str) -> list[Tire]:
        return self.find(position=position)

    def between(self, start: str | None, end: str | None) -> list[Tire]:
        """Tire records whose fitted is within [start, end]."""
        return [r for r in self if in_range(r.fitted, start, end)]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Tire]:
        """All tires ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Tire has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Tire]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Tire | None:
        """The tire with the greatest fitted (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Tire]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = TireStore(records)
        self._records = fresh._records
