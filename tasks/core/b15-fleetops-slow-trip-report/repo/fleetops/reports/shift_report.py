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
