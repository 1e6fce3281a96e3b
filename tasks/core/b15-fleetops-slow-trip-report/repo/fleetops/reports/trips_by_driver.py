"""The trips report: per-driver statistics (docs/cli.md)."""

from __future__ import annotations

from fleetops.reports.base import Table
from fleetops.services.trip_service import driver_stats
from fleetops.store.driver_store import DriverStore
from fleetops.store.trip_store import TripStore
from fleetops.store.vehicle_store import VehicleStore


def trips_report(trips: TripStore, drivers: DriverStore, vehicles: VehicleStore) -> Table:
    table = Table(
        "Trips per driver", ["driver", "trips", "km", "routes"],
        align={"trips": "right", "km": "right", "routes": "right"},
    )
    for s in driver_stats(trips, drivers.all(), vehicles):
        table.add(s.driver_id, s.trips, f"{s.km:.1f}", len(s.routes))
    return table
