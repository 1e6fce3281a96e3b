"""The summary table of shipments."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.shipment import Shipment
from fleetops.reports.base import Table
from fleetops.services import shipment_service as svc
from fleetops.store.shipment_store import ShipmentStore


def shipment_summary(store: ShipmentStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Shipment summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("shipments", len(records))
    for choice, count in svc.count_by_status(records).items():
        table.add(f"status={choice}", count)
    return table


def shipment_detail(records: Iterable[Shipment], limit: int | None = None) -> Table:
    """Every field of each shipment, one row per record (at most limit rows)."""
    table = Table("Shipment records", ["id", "customer_id", "trip_id", "weight_kg", "status"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.customer_id, r.trip_id, r.weight_kg, r.status)
    return table


def shipment_top(records: Iterable[Shipment], n: int = 5) -> Table:
    """The n shipments with the largest weight_kg."""
    table = Table("Top shipments by weight_kg", ["id", "weight_kg"])
    for r in svc.top_by_weight_kg(records, n):
        table.add(r.id, r.weight_kg)
    return table
