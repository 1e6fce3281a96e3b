"""The summary table of tolls."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.toll import Toll
from fleetops.reports.base import Table
from fleetops.services import toll_service as svc
from fleetops.store.toll_store import TollStore
from fleetops.util.money import format_money


def toll_summary(store: TollStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Toll summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("tolls", len(records))
    table.add("total amount", format_money(svc.total_amount_cents(records)))
    return table


def toll_detail(records: Iterable[Toll], limit: int | None = None) -> Table:
    """Every field of each toll, one row per record (at most limit rows)."""
    table = Table("Toll records", ["id", "trip_id", "day", "amount", "road"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.trip_id, r.day, r.amount, r.road)
    return table


def toll_by_month(records: Iterable[Toll]) -> Table:
    table = Table("Toll records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def toll_top(records: Iterable[Toll], n: int = 5) -> Table:
    """The n tolls with the largest amount."""
    table = Table("Top tolls by amount", ["id", "amount"])
    for r in svc.top_by_amount(records, n):
        table.add(r.id, r.amount)
    return table


def toll_stats(records: Iterable[Toll]) -> Table:
    """Count, min, max, mean and median of each number field of the tolls."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Toll statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("amount", svc.amount_stats(data), svc.median_amount(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def toll_by_trip(records: Iterable[Toll]) -> Table:
    """How many tolls each trip has."""
    table = Table("Toll records per trip", ["trip", "count"], align={"count": "right"})
    for trip_id, count in svc.count_by_trip(records).items():
        table.add(trip_id, count)
    return table


def toll_changes(before: Iterable[Toll], after: Iterable[Toll]) -> Table:
    """One row per toll added, removed or changed between two versions of the data."""
    table = Table("Toll changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def toll_problems(records: Iterable[Toll], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Toll problems", ["id", "problem"])
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
