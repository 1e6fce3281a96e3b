import unittest

from fleetops.models.fuel_log import FuelLog
from fleetops.models.vehicle import Vehicle
from fleetops.reports.fuel_report import fuel_report
from fleetops.services import fuel_log_service as fuel
from fleetops.store.fuel_log_store import FuelLogStore
from fleetops.store.vehicle_store import VehicleStore
from fleetops.util import money, units


def vehicle(n, depot, unit):
    return Vehicle(f"VEH-{n:04d}", f"AB-{n}", "Scania", 2021, depot, unit, 12000.0, True)


class _Fleet(unittest.TestCase):
    def setUp(self):
        self.vehicles = VehicleStore([
            vehicle(1, "DEP-0001", "km"),
            vehicle(7, "DEP-0002", "mi"),
        ])
        self.logs = FuelLogStore([
            FuelLog("FUE-0001", "VEH-0001", "2024-03-01", 1.0, 0.29, 10.0),
            FuelLog("FUE-0002", "VEH-0001", "2024-03-05", 30.0, 1.5, 420.0),
            FuelLog("FUE-0003", "VEH-0007", "2024-03-07", 10.0, 1.15, 38.0),
            FuelLog("FUE-0004", "VEH-0007", "2024-04-02", 20.0, 1.2, 80.0),
        ])


class TestCents(_Fleet):
    def test_to_cents_rounds_to_nearest(self):
        self.assertEqual(money.to_cents(0.29), 29)
        self.assertEqual(money.to_cents(1.005 + 0.0001), 101)
        self.assertEqual(money.sum_cents([0.29, 0.57, 1.15]), 201)

    def test_cost_by_depot_exact(self):
        # 0.29 + 45.00 for DEP-0001; 11.50 + 24.00 for DEP-0002
        self.assertEqual(
            fuel.cost_by_depot(self.logs, self.vehicles), {"DEP-0001": 4529, "DEP-0002": 3550}
        )


class TestMiles(_Fleet):
    def test_miles_odometer_converted_to_km(self):
        march = [log for log in self.logs if log.day.startswith("2024-03")]
        kml = fuel.km_per_liter(march, self.vehicles)
        self.assertAlmostEqual(kml["VEH-0007"], 38 * 1.609344 / 10)

    def test_report_month(self):
        costs, efficiency = fuel_report(self.logs, self.vehicles, "2024-03")
        self.assertEqual(costs.rows, [["DEP-0001", "45.29"], ["DEP-0002", "11.50"]])
        self.assertEqual(efficiency.rows, [["VEH-0001", "13.87"], ["VEH-0007", "6.12"]])


class TestUnchanged(_Fleet):
    def test_km_vehicle_efficiency(self):
        kml = fuel.km_per_liter(self.logs, self.vehicles)
        self.assertAlmostEqual(kml["VEH-0001"], 430 / 31)

    def test_money_helpers(self):
        self.assertEqual(money.format_money(123456789), "1,234,567.89")
        self.assertEqual(money.split_cents(100, 3), [34, 33, 33])
        self.assertEqual(money.to_cents(12.5), 1250)

    def test_units(self):
        self.assertAlmostEqual(units.to_km(10, "mi"), 16.09344)
        self.assertAlmostEqual(units.km_to_miles(1.609344), 1.0)


if __name__ == "__main__":
    unittest.main()
