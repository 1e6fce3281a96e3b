"""The summary table of stops."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.stop import Stop
from fleetops.reports.base import Table
from fleetops.services import stop_service as svc
from fleetops.store.stop_store import StopStore


def stop_summary(store: StopStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Stop summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("stops", len(records))
    return table


def stop_detail(records: Iterable[Stop], limit: int | None = None) -> Table:
    """Every field of each stop, one row per record (at most limit rows)."""
    table = Table("Stop records", ["id", "route_id", "sequence", "customer_id", "window_minutes"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.route_id, r.sequence, r.customer_id, r.window_minutes)
    return table


def stop_top(records: Iterable[Stop], n: int = 5) -> Table:
    """The n stops with the largest sequence."""
    table = Table("Top stops by sequence", ["id", "sequence"])
    for r in svc.top_by_sequence(records, n):
        table.add(r.id, r.sequence)
    return table


def stop_stats(records: Iterable[Stop]) -> Table:
    """Count, min, max, mean and median of each number field of the stops."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Stop statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("window_minutes", svc.window_minutes_stats(data), svc.median_window_minutes(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def stop_by_route(records: Iterable[Stop]) -> Table:
    """How many stops each route has."""
    table = Table("Stop records per route", ["route", "count"], align={"count": "right"})
    for route_id, count in svc.count_by_route(records).items():
        table.add(route_id, count)
    return table


def stop_by_customer(records: Iterable[Stop]) -> Table:
    """How many stops each customer has."""
    table = Table("Stop records per customer", ["customer", "count"], align={"count": "right"})
    for customer_id, count in svc.count_by_customer(records).items():
        table.add(customer_id, count)
    return table


def stop_changes(before: Iterable[Stop], after: Iterable[Stop]) -> Table:
    """One row per stop added, removed or changed between two versions of the data."""
    table = Table("Stop changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def stop_problems(records: Iterable[Stop], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Stop problems", ["id", "problem"])
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
