"""The store of depots."""

from __future__ import annotations

from typing import Any

from fleetops.models.depot import FIELDS, Depot
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


class DepotStore(InMemoryStore[Depot]):
    kind = "depot"

    def with_region(self, region: str) -> list[Depot]:
        return [r for r in self if _matches(r, {"region": region})]

    def between(self, start: str | None, end: str | None) -> list[Depot]:
        """Depot records whose opened is within [start, end]."""
        return [r for r in self if in_range(r.opened, start, end)]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Depot]:
        """All depots ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Depot has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Depot]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Depot | None:
        """The depot with the greatest opened (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Depot]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = DepotStore(records)
        self._records = fresh._records

    def where(self, **filters: Any) -> list[Depot]:
        """Records matching every filter (field=value)."""
        return [r for r in self if _matches(r, filters)]
