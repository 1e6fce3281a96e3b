"""In-memory storage of Shipment records with secondary indexes."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import DuplicateError, NotFoundError
from ..core.query import Query, apply_query
from ..models.shipment import Shipment


class ShipmentRepository:
    """Holds Shipment records by id; every write keeps the indexes in step."""

    def __init__(self, records: Iterable[Shipment] = ()) -> None:
        self._items: dict[str, Shipment] = {}
        self._by_tracking: dict[str, set[str]] = {}
        self._by_order_id: dict[str, set[str]] = {}
        for record in records:
            self.add(record)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._items

    def _index(self, record: Shipment) -> None:
        self._by_tracking.setdefault(record.tracking, set()).add(record.id)
        self._by_order_id.setdefault(record.order_id, set()).add(record.id)

    def _unindex(self, record: Shipment) -> None:
        self._by_tracking.get(record.tracking, set()).discard(record.id)
        self._by_order_id.get(record.order_id, set()).discard(record.id)

    def add(self, record: Shipment) -> Shipment:
        record.validate()
        if record.id in self._items:
            raise DuplicateError(f"Shipment {record.id} already exists")
        self._items[record.id] = record
        self._index(record)
        return record

    def get(self, record_id: str) -> Shipment:
        try:
            return self._items[record_id]
        except KeyError:
            raise NotFoundError(f"no Shipment with id {record_id}") from None

    def update(self, record: Shipment) -> Shipment:
        old = self.get(record.id)
        record.validate()
        self._unindex(old)
        self._items[record.id] = record
        self._index(record)
        return record

    def remove(self, record_id: str) -> Shipment:
        record = self.get(record_id)
        self._unindex(record)
        del self._items[record_id]
        return record

    def all(self) -> list[Shipment]:
        return [self._items[i] for i in sorted(self._items)]

    def active(self) -> list[Shipment]:
        return [r for r in self.all() if r.is_active]

    def query(self, query: Query) -> list[Shipment]:
        """Filter, sort and page the records as the query says."""
        return apply_query(self.all(), query)

    def find(self, **criteria: object) -> list[Shipment]:
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
        self._by_tracking.clear()
        self._by_order_id.clear()
        for data in snapshot.values():
            self.add(Shipment.from_dict(data))

    def find_by_tracking(self, value: str) -> list[Shipment]:
        """Records whose tracking equals value, in id order (uses the index)."""
        return [self._items[i] for i in sorted(self._by_tracking.get(value, ()))]

    def find_by_order_id(self, value: str) -> list[Shipment]:
        """Records whose order_id equals value, in id order (uses the index)."""
        return [self._items[i] for i in sorted(self._by_order_id.get(value, ()))]

    def ids(self) -> list[str]:
        return sorted(self._items)
