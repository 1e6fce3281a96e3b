"""The summary table of tires."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.tire import Tire
from fleetops.reports.base import Table
from fleetops.services import tire_service as svc
from fleetops.store.tire_store import TireStore


def tire_summary(store: TireStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Tire summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("tires", len(records))
    for choice, count in svc.count_by_position(records).items():
        table.add(f"position={choice}", count)
    return table


def tire_detail(records: Iterable[Tire], limit: int | None = None) -> Table:
    """Every field of each tire, one row per record (at most limit rows)."""
    table = Table("Tire records", ["id", "vehicle_id", "position", "fitted", "tread_mm"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.vehicle_id, r.position, r.fitted, r.tread_mm)
    return table


def tire_by_month(records: Iterable[Tire]) -> Table:
    table = Table("Tire records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def tire_top(records: Iterable[Tire], n: int = 5) -> Table:
    """The n tires with the largest tread_mm."""
    table = Table("Top tires by tread_mm", ["id", "tread_mm"])
    for r in svc.top_by_tread_mm(records, n):
        table.add(r.id, r.tread_mm)
    return table


def tire_stats(records: Iterable[Tire]) -> Table:
    """Count, min, max, mean and median of each number field of the tires."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Tire statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("tread_mm", svc.tread_mm_stats(data), svc.median_tread_mm(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def tire_by_vehicle(records: Iterable[Tire]) -> Table:
    """How many tires each vehicle has."""
    table = Table("Tire records per vehicle", ["vehicle", "count"], align={"count": "right"})
    for vehicle_id, count in svc.count_by_vehicle(records).items():
        table.add(vehicle_id, count)
    return table


def tire_changes(before: Iterable[Tire], after: Iterable[Tire]) -> Table:
    """One row per tire added, removed or changed between two versions of the data."""
    table = Table("Tire changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def tire_problems(records: Iterable[Tire], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Tire problems", ["id", "problem"])
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
