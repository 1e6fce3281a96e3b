"""The store of routes."""

from __future__ import annotations

from fleetops.models.route import FIELDS, Route
from fleetops.store.base import InMemoryStore


class RouteStore(InMemoryStore[Route]):
    kind = "route"

    def by_depot(self, depot_id: str) -> list[Route]:
        return self.find(depot_id=depot_id)

    def with_kind(self, kind: str) -> list[Route]:
        return self.find(kind=kind)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Route]:
        """All routes ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Route has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Route]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Route | None:
        """The route with the greatest name (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Route]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = RouteStore(records)
        self._records = fresh._records
