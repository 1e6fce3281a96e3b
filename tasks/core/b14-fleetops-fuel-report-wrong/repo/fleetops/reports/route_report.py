"""The summary table of routes."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.route import Route
from fleetops.reports.base import Table
from fleetops.services import route_service as svc
from fleetops.store.route_store import RouteStore


def route_summary(store: RouteStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Route summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("routes", len(records))
    for choice, count in svc.count_by_kind(records).items():
        table.add(f"kind={choice}", count)
    return table


def route_detail(records: Iterable[Route], limit: int | None = None) -> Table:
    """Every field of each route, one row per record (at most limit rows)."""
    table = Table("Route records", ["id", "name", "depot_id", "distance_km", "kind"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.name, r.depot_id, r.distance_km, r.kind)
    return table


def route_top(records: Iterable[Route], n: int = 5) -> Table:
    """The n routes with the largest distance_km."""
    table = Table("Top routes by distance_km", ["id", "distance_km"])
    for r in svc.top_by_distance_km(records, n):
        table.add(r.id, r.distance_km)
    return table
