"""The summary table of shifts."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.shift import Shift
from fleetops.reports.base import Table
from fleetops.services import shift_service as svc
from fleetops.store.shift_store import ShiftStore


def shift_summary(store: ShiftStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Shift summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("shifts", len(records))
    return table


def shift_detail(records: Iterable[Shift], limit: int | None = None) -> Table:
    """Every field of each shift, one row per record (at most limit rows)."""
    table = Table("Shift records", ["id", "driver_id", "day", "hours", "overtime"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.driver_id, r.day, r.hours, r.overtime)
    return table


def shift_by_month(records: Iterable[Shift]) -> Table:
    table = Table("Shift records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def shift_top(records: Iterable[Shift], n: int = 5) -> Table:
    """The n shifts with the largest hours."""
    table = Table("Top shifts by hours", ["id", "hours"])
    for r in svc.top_by_hours(records, n):
        table.add(r.id, r.hours)
    return table


def shift_stats(records: Iterable[Shift]) -> Table:
    """Count, min, max, mean and median of each number field of the shifts."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Shift statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("hours", svc.hours_stats(data), svc.median_hours(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def shift_by_driver(records: Iterable[Shift]) -> Table:
    """How many shifts each driver has."""
    table = Table("Shift records per driver", ["driver", "count"], align={"count": "right"})
    for driver_id, count in svc.count_by_driver(records).items():
        table.add(driver_id, count)
    return table


def shift_changes(before: Iterable[Shift], after: Iterable[Shift]) -> Table:
    """One row per shift added, removed or changed between two versions of the data."""
    table = Table("Shift changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def shift_problems(records: Iterable[Shift], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Shift problems", ["id", "problem"])
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
