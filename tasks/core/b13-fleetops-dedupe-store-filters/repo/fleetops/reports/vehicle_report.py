"""The summary table of vehicles."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.vehicle import Vehicle
from fleetops.reports.base import Table
from fleetops.services import vehicle_service as svc
from fleetops.store.vehicle_store import VehicleStore


def vehicle_summary(store: VehicleStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Vehicle summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("vehicles", len(records))
    for choice, count in svc.count_by_odometer_unit(records).items():
        table.add(f"odometer_unit={choice}", count)
    return table


def vehicle_detail(records: Iterable[Vehicle], limit: int | None = None) -> Table:
    """Every field of each vehicle, one row per record (at most limit rows)."""
    table = Table("Vehicle records", ["id", "plate", "make", "year", "depot_id", "odometer_unit", "capacity_kg", "active"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.plate, r.make, r.year, r.depot_id, r.odometer_unit, r.capacity_kg, r.active)
    return table


def vehicle_top(records: Iterable[Vehicle], n: int = 5) -> Table:
    """The n vehicles with the largest year."""
    table = Table("Top vehicles by year", ["id", "year"])
    for r in svc.top_by_year(records, n):
        table.add(r.id, r.year)
    return table
