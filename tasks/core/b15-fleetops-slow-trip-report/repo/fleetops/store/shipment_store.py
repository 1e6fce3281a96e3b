"""The store of shipments."""

from __future__ import annotations

from fleetops.models.shipment import FIELDS, Shipment
from fleetops.store.base import InMemoryStore


class ShipmentStore(InMemoryStore[Shipment]):
    kind = "shipment"

    def by_customer(self, customer_id: str) -> list[Shipment]:
        return self.find(customer_id=customer_id)

    def by_trip(self, trip_id: str) -> list[Shipment]:
        return self.find(trip_id=trip_id)

    def with_status(self, status: str) -> list[Shipment]:
        return self.find(status=status)

    def ids(self) -> list[str]:
        return [r.id for r in self]

    def sorted_by(self, field: str, reverse: bool = False) -> list[Shipment]:
        """All shipments ordered by one field (ties by id)."""
        if field not in FIELDS:
            raise AttributeError(f"Shipment has no field {field!r}")
        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)

    def page(self, offset: int, limit: int) -> list[Shipment]:
        """A slice of the records in insertion order, for paged listings."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        return self.all()[offset : offset + limit]

    def latest(self) -> Shipment | None:
        """The shipment with the greatest customer_id (None if empty)."""
        records = self.all()
        if not records:
            return None
        return max(records, key=lambda r: r.sort_key())

    def replace_all(self, records: list[Shipment]) -> None:
        """Swap the whole content; nothing changes if a record is invalid."""
        fresh = ShipmentStore(records)
        self._records = fresh._records
