"""The summary table of maintenances."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.maintenance import Maintenance
from fleetops.reports.base import Table
from fleetops.services import maintenance_service as svc
from fleetops.store.maintenance_store import MaintenanceStore
from fleetops.util.money import format_money


def maintenance_summary(store: MaintenanceStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Maintenance summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("maintenances", len(records))
    for choice, count in svc.count_by_kind(records).items():
        table.add(f"kind={choice}", count)
    table.add("total cost", format_money(svc.total_cost_cents(records)))
    return table


def maintenance_detail(records: Iterable[Maintenance], limit: int | None = None) -> Table:
    """Every field of each maintenance, one row per record (at most limit rows)."""
    table = Table("Maintenance records", ["id", "vehicle_id", "depot_id", "day", "kind", "labour_hours", "cost"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.vehicle_id, r.depot_id, r.day, r.kind, r.labour_hours, r.cost)
    return table


def maintenance_by_month(records: Iterable[Maintenance]) -> Table:
    table = Table("Maintenance records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def maintenance_top(records: Iterable[Maintenance], n: int = 5) -> Table:
    """The n maintenances with the largest labour_hours."""
    table = Table("Top maintenances by labour_hours", ["id", "labour_hours"])
    for r in svc.top_by_labour_hours(records, n):
        table.add(r.id, r.labour_hours)
    return table
