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


def shipment_stats(records: Iterable[Shipment]) -> Table:
    """Count, min, max, mean and median of each number field of the shipments."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Shipment statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("weight_kg", svc.weight_kg_stats(data), svc.median_weight_kg(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def shipment_by_customer(records: Iterable[Shipment]) -> Table:
    """How many shipments each customer has."""
    table = Table("Shipment records per customer", ["customer", "count"], align={"count": "right"})
    for customer_id, count in svc.count_by_customer(records).items():
        table.add(customer_id, count)
    return table


def shipment_by_trip(records: Iterable[Shipment]) -> Table:
    """How many shipments each trip has."""
    table = Table("Shipment records per trip", ["trip", "count"], align={"count": "right"})
    for trip_id, count in svc.count_by_trip(records).items():
        table.add(trip_id, count)
    return table


def shipment_changes(before: Iterable[Shipment], after: Iterable[Shipment]) -> Table:
    """One row per shipment added, removed or changed between two versions of the data."""
    table = Table("Shipment changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def shipment_problems(records: Iterable[Shipment], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Shipment problems", ["id", "problem"])
    data = list(records)
    for r in data:
        for problem in r.problems():
            table.add(r.id, problem)
    for ids in svc.find_duplicates(data):
        for record_id in ids[1:]:
            table.add(record_id, f"same content as {ids[0]}")
    for message in svc.check_references(data, **stores):
        record_id, _, problem = message.partition(": ")
        table.add(record_id, problem)
    return table
