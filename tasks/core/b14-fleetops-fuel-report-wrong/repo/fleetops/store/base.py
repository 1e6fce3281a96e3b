"""The in-memory store every record kind uses."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

from fleetops.errors import DuplicateError, NotFoundError

R = TypeVar("R")


def matches_filters(record: object, filters: dict[str, Any]) -> bool:
    """True if every filter names a field of the record whose value equals it."""
    for key, wanted in filters.items():
        if not hasattr(record, key):
            raise AttributeError(f"{type(record).__name__} has no field {key!r}")
        if getattr(record, key) != wanted:
            return False
    return True


class InMemoryStore(Generic[R]):
    """Records by id, in insertion order. Subclasses set `kind` and add queries."""

    kind = "record"

    def __init__(self, records: Iterable[R] = ()) -> None:
        self._records: dict[str, R] = {}
        for record in records:
            self.add(record)

    def add(self, record: R) -> R:
        record_id = record.id  # type: ignore[attr-defined]
        if record_id in self._records:
            raise DuplicateError(f"{self.kind} {record_id} already exists")
        record.validate()  # type: ignore[attr-defined]
        self._records[record_id] = record
        return record

    def get(self, record_id: str) -> R:
        try:
            return self._records[record_id]
        except KeyError:
            raise NotFoundError(f"no {self.kind} with id {record_id}") from None

    def has(self, record_id: str) -> bool:
        return record_id in self._records

    def remove(self, record_id: str) -> R:
        record = self.get(record_id)
        del self._records[record_id]
        return record

    def all(self) -> list[R]:
        return list(self._records.values())

    def __iter__(self) -> Iterator[R]:
        return iter(self._records.values())

    def __len__(self) -> int:
        return len(self._records)

    def find(self, **filters: Any) -> list[R]:
        """Records whose fields equal every given filter value."""
        return [r for r in self._records.values() if matches_filters(r, filters)]
