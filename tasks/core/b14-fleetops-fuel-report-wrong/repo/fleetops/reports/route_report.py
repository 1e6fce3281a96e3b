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


def route_stats(records: Iterable[Route]) -> Table:
    """Count, min, max, mean and median of each number field of the routes."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Route statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("distance_km", svc.distance_km_stats(data), svc.median_distance_km(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def route_by_depot(records: Iterable[Route]) -> Table:
    """How many routes each depot has."""
    table = Table("Route records per depot", ["depot", "count"], align={"count": "right"})
    for depot_id, count in svc.count_by_depot(records).items():
        table.add(depot_id, count)
    return table


def route_changes(before: Iterable[Route], after: Iterable[Route]) -> Table:
    """One row per route added, removed or changed between two versions of the data."""
    table = Table("Route changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def route_problems(records: Iterable[Route], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Route problems", ["id", "problem"])
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
