"""The summary table of trips."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.trip import Trip
from fleetops.reports.base import Table
from fleetops.services import trip_service as svc
from fleetops.store.trip_store import TripStore


def trip_summary(store: TripStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Trip summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("trips", len(records))
    for choice, count in svc.count_by_status(records).items():
        table.add(f"status={choice}", count)
    return table


def trip_detail(records: Iterable[Trip], limit: int | None = None) -> Table:
    """Every field of each trip, one row per record (at most limit rows)."""
    table = Table("Trip records", ["id", "route_id", "driver_id", "vehicle_id", "day", "distance", "status"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.route_id, r.driver_id, r.vehicle_id, r.day, r.distance, r.status)
    return table


def trip_by_month(records: Iterable[Trip]) -> Table:
    table = Table("Trip records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def trip_top(records: Iterable[Trip], n: int = 5) -> Table:
    """The n trips with the largest distance."""
    table = Table("Top trips by distance", ["id", "distance"])
    for r in svc.top_by_distance(records, n):
        table.add(r.id, r.distance)
    return table
