"""In-memory storage of Practitioner records with secondary indexes."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import DuplicateError, NotFoundError
from ..core.query import Query, apply_query
from ..models.practitioner import Practitioner


class PractitionerRepository:
    """Holds Practitioner records by id; every write keeps the indexes in step."""

    def __init__(self, records: Iterable[Practitioner] = ()) -> None:
        self._items: dict[str, Practitioner] = {}
        self._by_specialty: dict[str, set[str]] = {}
        for record in records:
            self.add(record)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._items

    def _index(self, record: Practitioner) -> None:
        self._by_specialty.setdefault(record.specialty, set()).add(record.id)

    def _unindex(self, record: Practitioner) -> None:
        self._by_specialty.get(record.specialty, set()).discard(record.id)

    def add(self, record: Practitioner) -> Practitioner:
        record.validate()
        if record.id in self._items:
            raise DuplicateError(f"Practitioner {record.id} already exists")
        self._items[record.id] = record
        self._index(record)
        return record

    def get(self, record_id: str) -> Practitioner:
        try:
            return self._items[record_id]
        except KeyError:
            raise NotFoundError(f"no Practitioner with id {record_id}") from None

    def update(self, record: Practitioner) -> Practitioner:
        old = self.get(record.id)
        record.validate()
        self._unindex(old)
        self._items[record.id] = record
        self._index(record)
        return record

    def remove(self, record_id: str) -> Practitioner:
        record = self.get(record_id)
        self._unindex(record)
        del self._items[record_id]
        return record

    def all(self) -> list[Practitioner]:
        return [self._items[i] for i in sorted(self._items)]

    def active(self) -> list[Practitioner]:
        return [r for r in self.all() if r.is_active]

    def query(self, query: Query) -> list[Practitioner]:
        """Filter, sort and page the records as the query says."""
        return apply_query(self.all(), query)

    def find(self, **criteria: object) -> list[Practitioner]:
        """Records whose attributes equal every criterion (a linear scan)."""
        return [
            r for r in self.all()
            if all(getattr(r, name) == value for name, value in criteria.items())
        ]

    def count_where(self, **criteria: object) -> int:
        return len(self.find(**criteria))

    def snapshot(self) -> dict[str, dict]:
        """A copy of every record as a dict, for undo and for tests."""
        return {i: r.to_dict() for i, r in self._items.items()}

    def restore(self, snapshot: dict[str, dict]) -> None:
        """Replace the contents with a snapshot taken earlier."""
        self._items.clear()
        self._by_specialty.clear()
        for data in snapshot.values():
            self.add(Practitioner.from_dict(data))

    def find_by_specialty(self, value: str) -> list[Practitioner]:
        """Records whose specialty equals value, in id order (uses the index)."""
        return [self._items[i] for i in sorted(self._by_specialty.get(value, ()))]

    def ids(self) -> list[str]:
        return sorted(self._items)
