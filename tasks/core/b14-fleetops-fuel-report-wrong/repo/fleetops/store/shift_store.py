"""The store of shifts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.shift import FIELDS, Shift
from fleetops.store.base import InMemoryStore, matches_filters
from fleetops.util.dates import in_range


class ShiftStore(InMemoryStore[Shift]):
    kind = "shift"

    def by_driver(self, driver_id: str) -> list[Shift]:
        return self.find(driver_id=driver_id)

    def between(self, start: str | None, end: str | None) -> list[Shift]:
        """Shift records whose day is within [start, end]."""
        return [r for r in self if in_range(r.day, start, end)]

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Shift]:
        """All shifts ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Shift has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Shift]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Shift | None:
        """The shift with the greatest day (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Shift]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = ShiftStore(records)
        self._records = fresh._records

    def index_by(self, field: str) -> dict[object, list[Shift]]:
        """Records grouped by the value of one field, values in first-seen order."""
        if field not in FIELDS:
            raise AttributeError(f"Shift has no field {field!r}")
        index: dict[object, list[Shift]] = {}
        for r in self:
            index.setdefault(getattr(r, field), []).append(r)
        return index

    def count_where(self, **filters: Any) -> int:
        """How many records match every filter (field=value)."""
        return sum(1 for r in self if matches_filters(r, filters))

    def first_where(self, **filters: Any) -> Shift | None:
        """The first record, in insertion order, that matches every filter."""
        for r in self:
            if matches_filters(r, filters):
                return r
        return None

    def upsert(self, record: Shift) -> bool:
        """Add a record or replace the one with its id; True if one was replaced."""
        record.validate()
        replaced = record.id in self._records
        self._records[record.id] = record
        return replaced

    def add_many(self, records: Iterable[Shift]) -> list[str]:
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
        self.replace_all([Shift.from_dict(d) for d in snapshot])

    def pop_where(self, **filters: Any) -> list[Shift]:
        """Remove and return every record that matches the filters."""
        gone = [r for r in self if matches_filters(r, filters)]
        for r in gone:
            del self._records[r.id]
        return gone
