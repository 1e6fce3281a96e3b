"""The store of suppliers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.supplier import FIELDS, Supplier
from fleetops.store.base import InMemoryStore, matches_filters


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

    def index_by(self, field: str) -> dict[object, list[Supplier]]:
        """Records grouped by the value of one field, values in first-seen order."""
        if field not in FIELDS:
            raise AttributeError(f"Supplier has no field {field!r}")
        index: dict[object, list[Supplier]] = {}
        for r in self:
            index.setdefault(getattr(r, field), []).append(r)
        return index

    def count_where(self, **filters: Any) -> int:
        """How many records match every filter (field=value)."""
        return sum(1 for r in self if matches_filters(r, filters))

    def first_where(self, **filters: Any) -> Supplier | None:
        """The first record, in insertion order, that matches every filter."""
        for r in self:
            if matches_filters(r, filters):
                return r
        return None

    def upsert(self, record: Supplier) -> bool:
        """Add a record or replace the one with its id; True if one was replaced."""
        record.validate()
        replaced = record.id in self._records
        self._records[record.id] = record
        return replaced

    def add_many(self, records: Iterable[Supplier]) -> list[str]:
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
        self.replace_all([Supplier.from_dict(d) for d in snapshot])

    def pop_where(self, **filters: Any) -> list[Supplier]:
        """Remove and return every record that matches the filters."""
        gone = [r for r in self if matches_filters(r, filters)]
        for r in gone:
            del self._records[r.id]
        return gone
