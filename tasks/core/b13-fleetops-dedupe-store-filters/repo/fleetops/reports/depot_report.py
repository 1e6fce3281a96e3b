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
