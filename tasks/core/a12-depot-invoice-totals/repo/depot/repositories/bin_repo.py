"""In-memory storage of Bin records with secondary indexes."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import DuplicateError, NotFoundError
from ..core.query import Query, apply_query
from ..models.bin import Bin


class BinRepository:
    """Holds Bin records by id; every write keeps the indexes in step."""

    def __init__(self, records: Iterable[Bin] = ()) -> None:
        self._items: dict[str, Bin] = {}
        self._by_code: dict[str, set[str]] = {}
        self._by_warehouse_id: dict[str, set[str]] = {}
        for record in records:
            self.add(record)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._items

    def _index(self, record: Bin) -> None:
        self._by_code.setdefault(record.code, set()).add(record.id)
        self._by_warehouse_id.setdefault(record.warehouse_id, set()).add(record.id)

    def _unindex(self, record: Bin) -> None:
        self._by_code.get(record.code, set()).discard(record.id)
        self._by_warehouse_id.get(record.warehouse_id, set()).discard(record.id)

    def add(self, record: Bin) -> Bin:
        record.validate()
        if record.id in self._items:
            raise DuplicateError(f"Bin {record.id} already exists")
        self._items[record.id] = record
        self._index(record)
        return record

    def get(self, record_id: str) -> Bin:
        try:
            return self._items[record_id]
        except KeyError:
            raise NotFoundError(f"no Bin with id {record_id}") from None

    def update(self, record: Bin) -> Bin:
        old = self.get(record.id)
        record.validate()
        self._unindex(old)
        self._items[record.id] = record
        self._index(record)
        return record

    def remove(self, record_id: str) -> Bin:
        record = self.get(record_id)
        self._unindex(record)
        del self._items[record_id]
        return record

    def all(self) -> list[Bin]:
        return [self._items[i] for i in sorted(self._items)]

    def active(self) -> list[Bin]:
        return [r for r in self.all() if r.is_active]

    def query(self, query: Query) -> list[Bin]:
        """Filter, sort and page the records as the query says."""
        return apply_query(self.all(), query)

    def find(self, **criteria: object) -> list[Bin]:
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
        self._by_code.clear()
        self._by_warehouse_id.clear()
        for data in snapshot.values():
            self.add(Bin.from_dict(data))

    def find_by_code(self, value: str) -> list[Bin]:
        """Records whose code equals value, in id order (uses the index)."""
        return [self._items[i] for i in sorted(self._by_code.get(value, ()))]

    def find_by_warehouse_id(self, value: str) -> list[Bin]:
        """Records whose warehouse_id equals value, in id order (uses the index)."""
        return [self._items[i] for i in sorted(self._by_warehouse_id.get(value, ()))]

    def ids(self) -> list[str]:
        return sorted(self._items)
