"""The store of stops."""

from __future__ import annotations

from fleetops.models.stop import FIELDS, Stop
from fleetops.store.base import InMemoryStore


class StopStore(InMemoryStore[Stop]):
    kind = "stop"

    def by_route(self, route_id: str) -> list[Stop]:
        return self.find(route_id=route_id)

    def by_customer(self, customer_id: str) -> list[Stop]:
        return self.find(customer_id=customer_id)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Stop]:
        """All stops ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Stop has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Stop]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Stop | None:
        """The stop with the greatest route_id (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Stop]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = StopStore(records)
        self._records = fresh._records
