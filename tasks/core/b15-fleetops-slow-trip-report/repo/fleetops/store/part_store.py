"""The store of parts."""

from __future__ import annotations

from fleetops.models.part import FIELDS, Part
from fleetops.store.base import InMemoryStore


class PartStore(InMemoryStore[Part]):
    kind = "part"

    def by_supplier(self, supplier_id: str) -> list[Part]:
        return self.find(supplier_id=supplier_id)

    def with_category(self, category: str) -> list[Part]:
        return self.find(category=category)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Part]:
        """All parts ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Part has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Part]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Part | None:
        """The part with the greatest name (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Part]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = PartStore(records)
        self._records = fresh._records
