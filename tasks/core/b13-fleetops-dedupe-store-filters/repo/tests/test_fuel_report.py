import unittest

from fleetops.models.fuel_log import FuelLog
from fleetops.models.vehicle import Vehicle
from fleetops.reports.fuel_report import fuel_report
from fleetops.services import fuel_log_service as fuel
from fleetops.store.fuel_log_store import FuelLogStore
from fleetops.store.vehicle_store import VehicleStore


def vehicle(n, depot, unit):
    return Vehicle(f"VEH-{n:04d}", f"AB-{n}", "Volvo", 2020, depot, unit, 9000.0, True)


class TestFuel(unittest.TestCase):
    def setUp(self):
        self.vehicles = VehicleStore([vehicle(1, "DEP-0001", "km")])
        self.logs = FuelLogStore([
            FuelLog("FUE-0001", "VEH-0001", "2024-03-02", 50.0, 2.0, 600.0),
            FuelLog("FUE-0002", "VEH-0001", "2024-04-09", 40.0, 2.5, 525.0),
        ])

    def test_cost_by_depot(self):
        self.assertEqual(fuel.cost_by_depot(self.logs, self.vehicles), {"DEP-0001": 20000})

    def test_km_per_liter(self):
        self.assertEqual(fuel.km_per_liter(self.logs, self.vehicles), {"VEH-0001": 12.5})

    def test_report_month(self):
        costs, _ = fuel_report(self.logs, self.vehicles, "2024-03")
        self.assertEqual(costs.rows, [["DEP-0001", "100.00"]])


if __name__ == "__main__":
    unittest.main()
