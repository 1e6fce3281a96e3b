"""The store of customers."""

from __future__ import annotations

from fleetops.models.customer import FIELDS, Customer
from fleetops.store.base import InMemoryStore


class CustomerStore(InMemoryStore[Customer]):
    kind = "customer"

    def with_segment(self, segment: str) -> list[Customer]:
        return self.find(segment=segment)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Customer]:
        """All customers ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Customer has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Customer]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Customer | None:
        """The customer with the greatest name (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Customer]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = CustomerStore(records)
        self._records = fresh._records
