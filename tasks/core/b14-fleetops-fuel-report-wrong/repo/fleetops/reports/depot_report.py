"""The summary table of depots."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.depot import Depot
from fleetops.reports.base import Table
from fleetops.services import depot_service as svc
from fleetops.store.depot_store import DepotStore


def depot_summary(store: DepotStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Depot summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("depots", len(records))
    for choice, count in svc.count_by_region(records).items():
        table.add(f"region={choice}", count)
    return table


def depot_detail(records: Iterable[Depot], limit: int | None = None) -> Table:
    """Every field of each depot, one row per record (at most limit rows)."""
    table = Table("Depot records", ["id", "name", "city", "region", "bays", "opened"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.name, r.city, r.region, r.bays, r.opened)
    return table


def depot_by_month(records: Iterable[Depot]) -> Table:
    table = Table("Depot records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def depot_top(records: Iterable[Depot], n: int = 5) -> Table:
    """The n depots with the largest bays."""
    table = Table("Top depots by bays", ["id", "bays"])
    for r in svc.top_by_bays(records, n):
        table.add(r.id, r.bays)
    return table


def depot_stats(records: Iterable[Depot]) -> Table:
    """Count, min, max, mean and median of each number field of the depots."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Depot statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("bays", svc.bays_stats(data), svc.median_bays(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def depot_changes(before: Iterable[Depot], after: Iterable[Depot]) -> Table:
    """One row per depot added, removed or changed between two versions of the data."""
    table = Table("Depot changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def depot_problems(records: Iterable[Depot], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Depot problems", ["id", "problem"])
    data = list(records)
    for r in data:
        for problem in r.problems():
            table.add(r.id, problem)
    for ids in svc.find_duplicates(data):
        for record_id in ids[1:]:
            table.add(record_id, f"same content as {ids[0]}")
    del stores  # no references to check for this kind
    return table
