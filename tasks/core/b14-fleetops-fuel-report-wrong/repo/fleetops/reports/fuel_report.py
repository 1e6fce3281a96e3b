"""The fuel report: cost per depot and efficiency per vehicle (docs/cli.md)."""

from __future__ import annotations

from fleetops.reports.base import Table
from fleetops.services import fuel_log_service as fuel
from fleetops.store.fuel_log_store import FuelLogStore
from fleetops.store.vehicle_store import VehicleStore
from fleetops.util.dates import month_of
from fleetops.util.money import format_money


def fuel_report(
    logs: FuelLogStore, vehicles: VehicleStore, month: str | None = None
) -> list[Table]:
    """Two tables: cost per depot and km per litre per vehicle, for one month or all."""
    selected = [log for log in logs if month is None or month_of(log.day) == month]
    suffix = f" ({month})" if month else ""
    costs = Table("Fuel cost per depot" + suffix, ["depot", "cost"], align={"cost": "right"})
    for depot, cents in fuel.cost_by_depot(selected, vehicles).items():
        costs.add(depot, format_money(cents))
    efficiency = Table(
        "Fuel efficiency" + suffix, ["vehicle", "km/l"], align={"km/l": "right"}
    )
    for vehicle, kml in fuel.km_per_liter(selected, vehicles).items():
        efficiency.add(vehicle, f"{kml:.2f}")
    return [costs, efficiency]
