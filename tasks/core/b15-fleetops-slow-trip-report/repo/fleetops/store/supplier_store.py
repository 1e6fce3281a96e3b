"""The store of suppliers."""

from __future__ import annotations

from fleetops.models.supplier import FIELDS, Supplier
from fleetops.store.base import InMemoryStore


class SupplierStore(InMemoryStore[Supplier]):
    kind = "supplier"

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Supplier]:
        """All suppliers ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Supplier has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Supplier]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Supplier | None:
        """The supplier with the greatest name (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Supplier]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = SupplierStore(records)
        self._records = fresh._records
