"""The summary table of drivers."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.driver import Driver
from fleetops.reports.base import Table
from fleetops.services import driver_service as svc
from fleetops.store.driver_store import DriverStore
from fleetops.util.money import format_money


def driver_summary(store: DriverStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Driver summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("drivers", len(records))
    for choice, count in svc.count_by_license_class(records).items():
        table.add(f"license_class={choice}", count)
    table.add("total hourly_rate", format_money(svc.total_hourly_rate_cents(records)))
    return table


def driver_detail(records: Iterable[Driver], limit: int | None = None) -> Table:
    """Every field of each driver, one row per record (at most limit rows)."""
    table = Table("Driver records", ["id", "name", "license_class", "depot_id", "hired", "hourly_rate", "active"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.name, r.license_class, r.depot_id, r.hired, r.hourly_rate, r.active)
    return table


def driver_by_month(records: Iterable[Driver]) -> Table:
    table = Table("Driver records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def driver_top(records: Iterable[Driver], n: int = 5) -> Table:
    """The n drivers with the largest hourly_rate."""
    table = Table("Top drivers by hourly_rate", ["id", "hourly_rate"])
    for r in svc.top_by_hourly_rate(records, n):
        table.add(r.id, r.hourly_rate)
    return table
