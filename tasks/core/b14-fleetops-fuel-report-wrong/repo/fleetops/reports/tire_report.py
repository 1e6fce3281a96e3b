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
