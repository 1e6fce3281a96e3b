import importlib
import importlib.util
import inspect
import unittest

from fleetops.models.driver import Driver
from fleetops.models.trip import Trip
from fleetops.models.vehicle import Vehicle
from fleetops.store.driver_store import DriverStore
from fleetops.store.trip_store import TripStore
from fleetops.store.vehicle_store import VehicleStore

STORE_MODULES = (
    "customer", "depot", "driver", "fuel_log", "invoice", "route", "trip", "vehicle",
)


def vehicles():
    return VehicleStore([
        Vehicle("VEH-0001", "A", "MAN", 2019, "DEP-0001", "km", 9000.0, True),
        Vehicle("VEH-0002", "B", "MAN", 2020, "DEP-0002", "mi", 9000.0, False),
        Vehicle("VEH-0003", "C", "DAF", 2021, "DEP-0001", "mi", 7000.0, True),
    ])


class TestOneFilterFunction(unittest.TestCase):
    def test_base_exports_matches_filters(self):
        from fleetops.store.base import matches_filters

        car = vehicles().get("VEH-0003")
        self.assertTrue(matches_filters(car, {"make": "DAF", "odometer_unit": "mi"}))
        self.assertFalse(matches_filters(car, {"make": "MAN"}))
        self.assertTrue(matches_filters(car, {}))
        with self.assertRaises(AttributeError):
            matches_filters(car, {"colour": "red"})

    def test_filters_module_removed(self):
        self.assertIsNone(importlib.util.find_spec("fleetops.store.filters"))

    def test_store_modules_define_no_copies(self):
        for name in STORE_MODULES:
            module = importlib.import_module(f"fleetops.store.{name}_store")
            own = [
                fn for fn, obj in inspect.getmembers(module, inspect.isfunction)
                if obj.__module__ == module.__name__
            ]
            self.assertEqual(own, [], f"fleetops/store/{name}_store.py still defines {own}")


class TestBehaviourUnchanged(unittest.TestCase):
    def test_vehicle_queries(self):
        store = vehicles()
        self.assertEqual([v.id for v in store.by_depot("DEP-0001")], ["VEH-0001", "VEH-0003"])
        self.assertEqual([v.id for v in store.with_odometer_unit("mi")], ["VEH-0002", "VEH-0003"])
        self.assertEqual([v.id for v in store.active()], ["VEH-0001", "VEH-0003"])
        self.assertEqual([v.id for v in store.where(make="MAN", active=True)], ["VEH-0001"])
        self.assertEqual([v.id for v in store.find(year=2020)], ["VEH-0002"])

    def test_unknown_field_raises(self):
        store = vehicles()
        with self.assertRaises(AttributeError):
            store.where(colour="red")
        with self.assertRaises(AttributeError):
            store.find(colour="red")

    def test_trip_and_driver_queries(self):
        trips = TripStore([
            Trip("TRP-0001", "RTE-0001", "DRV-0001", "VEH-0001", "2024-01-02", 10.0, "done"),
            Trip("TRP-0002", "RTE-0002", "DRV-0002", "VEH-0001", "2024-02-03", 20.0, "planned"),
        ])
        self.assertEqual([t.id for t in trips.with_status("planned")], ["TRP-0002"])
        self.assertEqual([t.id for t in trips.by_driver("DRV-0001")], ["TRP-0001"])
        self.assertEqual([t.id for t in trips.between("2024-02-01", None)], ["TRP-0002"])
        drivers = DriverStore([
            Driver("DRV-0001", "Ana", "C", "DEP-0001", "2020-01-01", 20.0, False),
            Driver("DRV-0002", "Bo", "CE", "DEP-0001", "2021-01-01", 21.0, True),
        ])
        self.assertEqual([d.id for d in drivers.active()], ["DRV-0002"])
        self.assertEqual([d.id for d in drivers.with_license_class("CE")], ["DRV-0002"])


if __name__ == "__main__":
    unittest.main()
