"""The store of invoices."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.invoice import FIELDS, Invoice
from fleetops.store.base import InMemoryStore, matches_filters
from fleetops.util.dates import in_range


class InvoiceStore(InMemoryStore[Invoice]):
    kind = "invoice"

    def by_customer(self, customer_id: str) -> list[Invoice]:
        return self.find(customer_id=customer_id)

    def between(self, start: str | None, end: str | None) -> list[Invoice]:
        """Invoice records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Invoice]:
        """All invoices ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Invoice has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Invoice]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Invoice | None:
        """The invoice with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Invoice]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = InvoiceStore(records)
        self._records = fresh._records

    def index_by(self, field: str) -> dict[object, list[Invoice]]:
        """Records grouped by the value of one field, values in first-seen order."""
        if field not in FIELDS:
            raise AttributeError(f"Invoice has no field {field!r}")
        index: dict[object, list[Invoice]] = {}
        for r in self:
            index.setdefault(getattr(r, field), []).append(r)
        return index

    def count_where(self, **filters: Any) -> int:
        """How many records match every filter (field=value)."""
        return sum(1 for r in self if matches_filters(r, filters))

    def first_where(self, **filters: Any) -> Invoice | None:
        """The first record, in insertion order, that matches every filter."""
        for r in self:
            if matches_filters(r, filters):
                return r
        return None

    def upsert(self, record: Invoice) -> bool:
        """Add a record or replace the one with its id; True if one was replaced."""
        record.validate()
        replaced = record.id in self._records
        self._records[record.id] = record
        return replaced

    def add_many(self, records: Iterable[Invoice]) -> list[str]:
        """Add each record; one message per rejected record (the others are kept)."""
        problems = []
        for r in records:
            try:
                self.add(r)
            except (DuplicateError, ValidationError) as exc:
                problems.append(f"{r.id}: {exc}")
        return problems

    def snapshot(self) -> list[dict]:
        """Plain dicts of every record, for restore() (records are mutable)."""
        return [r.to_dict() for r in self]

    def restore(self, snapshot: list[dict]) -> None:
        """Go back to a snapshot; nothing changes if one of its records is invalid."""
        self.replace_all([Invoice.from_dict(d) for d in snapshot])

    def pop_where(self, **filters: Any) -> list[Invoice]:
        """Remove and return every record that matches the filters."""
        gone = [r for r in self if matches_filters(r, filters)]
        for r in gone:
            del self._records[r.id]
        return gone
