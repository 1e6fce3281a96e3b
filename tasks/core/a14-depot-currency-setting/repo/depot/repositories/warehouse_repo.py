"""In-memory storage of Warehouse records with secondary indexes."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import DuplicateError, NotFoundError
from ..core.query import Query, apply_query
from ..models.warehouse import Warehouse


class WarehouseRepository:
    """Holds Warehouse records by id; every write keeps the indexes in step."""

    def __init__(self, records: Iterable[Warehouse] = ()) -> None:
        self._items: dict[str, Warehouse] = {}
        self._by_city: dict[str, set[str]] = {}
        for record in records:
            self.add(record)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._items

    def _index(self, record: Warehouse) -> None:
        self._by_city.setdefault(record.city, set()).add(record.id)

    def _unindex(self, record: Warehouse) -> None:
        self._by_city.get(record.city, set()).discard(record.id)

    def add(self, record: Warehouse) -> Warehouse:
        record.validate()
        if record.id in self._items:
            raise DuplicateError(f"Warehouse {record.id} already exists")
        self._items[record.id] = record
        self._index(record)
        return record

    def get(self, record_id: str) -> Warehouse:
        try:
            return self._items[record_id]
        except KeyError:
            raise NotFoundError(f"no Warehouse with id {record_id}") from None

    def update(self, record: Warehouse) -> Warehouse:
        old = self.get(record.id)
        record.validate()
        self._unindex(old)
        self._items[record.id] = record
        self._index(record)
        return record

    def remove(self, record_id: str) -> Warehouse:
        record = self.get(record_id)
        self._unindex(record)
        del self._items[record_id]
        return record

    def all(self) -> list[Warehouse]:
        return [self._items[i] for i in sorted(self._items)]

    def active(self) -> list[Warehouse]:
        return [r for r in self.all() if r.is_active]

    def query(self, query: Query) -> list[Warehouse]:
        """Filter, sort and page the records as the query says."""
        return apply_query(self.all(), query)

    def find(self, **criteria: object) -> list[Warehouse]:
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
        self._by_city.clear()
        for data in snapshot.values():
            self.add(Warehouse.from_dict(data))

    def find_by_city(self, value: str) -> list[Warehouse]:
        """Records whose city equals value, in id order (uses the index)."""
        return [self._items[i] for i in sorted(self._by_city.get(value, ()))]

    def ids(self) -> list[str]:
        return sorted(self._items)
