"""The summary table of fuel_logs."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.fuel_log import FuelLog
from fleetops.reports.base import Table
from fleetops.services import fuel_log_service as svc
from fleetops.store.fuel_log_store import FuelLogStore
from fleetops.util.money import format_money


def fuel_log_summary(store: FuelLogStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("FuelLog summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("fuel_logs", len(records))
    table.add("total price_per_liter", format_money(svc.total_price_per_liter_cents(records)))
    return table


def fuel_log_detail(records: Iterable[FuelLog], limit: int | None = None) -> Table:
    """Every field of each fuel_log, one row per record (at most limit rows)."""
    table = Table("FuelLog records", ["id", "vehicle_id", "day", "liters", "price_per_liter", "distance"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.vehicle_id, r.day, r.liters, r.price_per_liter, r.distance)
    return table


def fuel_log_by_month(records: Iterable[FuelLog]) -> Table:
    table = Table("FuelLog records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def fuel_log_top(records: Iterable[FuelLog], n: int = 5) -> Table:
    """The n fuel_logs with the largest liters."""
    table = Table("Top fuel_logs by liters", ["id", "liters"])
    for r in svc.top_by_liters(records, n):
        table.add(r.id, r.liters)
    return table
