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
