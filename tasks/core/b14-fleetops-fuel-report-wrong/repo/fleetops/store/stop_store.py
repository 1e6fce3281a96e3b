"""The store of stops."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.stop import FIELDS, Stop
from fleetops.store.base import InMemoryStore, matches_filters


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

    def index_by(self, field: str) -> dict[object, list[Stop]]:
        """Records grouped by the value of one field, values in first-seen order."""
        if field not in FIELDS:
            raise AttributeError(f"Stop has no field {field!r}")
        index: dict[object, list[Stop]] = {}
        for r in self:
            index.setdefault(getattr(r, field), []).append(r)
        return index

    def count_where(self, **filters: Any) -> int:
        """How many records match every filter (field=value)."""
        return sum(1 for r in self if matches_filters(r, filters))

    def first_where(self, **filters: Any) -> Stop | None:
        """The first record, in insertion order, that matches every filter."""
        for r in self:
            if matches_filters(r, filters):
                return r
        return None

    def upsert(self, record: Stop) -> bool:
        """Add a record or replace the one with its id; True if one was replaced."""
        record.validate()
        replaced = record.id in self._records
        self._records[record.id] = record
        return replaced

    def add_many(self, records: Iterable[Stop]) -> list[str]:
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
        self.replace_all([Stop.from_dict(d) for d in snapshot])

    def pop_where(self, **filters: Any) -> list[Stop]:
        """Remove and return every record that matches the filters."""
        gone = [r for r in self if matches_filters(r, filters)]
        for r in gone:
            del self._records[r.id]
        return gone
