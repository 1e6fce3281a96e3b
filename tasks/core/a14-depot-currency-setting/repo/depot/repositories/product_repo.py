"""In-memory storage of Product records with secondary indexes."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import DuplicateError, NotFoundError
from ..core.query import Query, apply_query
from ..models.product import Product


class ProductRepository:
    """Holds Product records by id; every write keeps the indexes in step."""

    def __init__(self, records: Iterable[Product] = ()) -> None:
        self._items: dict[str, Product] = {}
        self._by_sku: dict[str, set[str]] = {}
        for record in records:
            self.add(record)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._items

    def _index(self, record: Product) -> None:
        self._by_sku.setdefault(record.sku, set()).add(record.id)

    def _unindex(self, record: Product) -> None:
        self._by_sku.get(record.sku, set()).discard(record.id)

    def add(self, record: Product) -> Product:
        record.validate()
        if record.id in self._items:
            raise DuplicateError(f"Product {record.id} already exists")
        self._items[record.id] = record
        self._index(record)
        return record

    def get(self, record_id: str) -> Product:
        try:
            return self._items[record_id]
        except KeyError:
            raise NotFoundError(f"no Product with id {record_id}") from None

    def update(self, record: Product) -> Product:
        old = self.get(record.id)
        record.validate()
        self._unindex(old)
        self._items[record.id] = record
        self._index(record)
        return record

    def remove(self, record_id: str) -> Product:
        record = self.get(record_id)
        self._unindex(record)
        del self._items[record_id]
        return record

    def all(self) -> list[Product]:
        return [self._items[i] for i in sorted(self._items)]

    def active(self) -> list[Product]:
        return [r for r in self.all() if r.is_active]

    def query(self, query: Query) -> list[Product]:
        """Filter, sort and page the records as the query says."""
        return apply_query(self.all(), query)

    def find(self, **criteria: object) -> list[Product]:
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
        self._by_sku.clear()
        for data in snapshot.values():
            self.add(Product.from_dict(data))

    def find_by_sku(self, value: str) -> list[Product]:
        """Records whose sku equals value, in id order (uses the index)."""
        return [self._items[i] for i in sorted(self._by_sku.get(value, ()))]

    def ids(self) -> list[str]:
        return sorted(self._items)
