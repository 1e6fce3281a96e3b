import unittest

from fleetops.models.driver import Driver
from fleetops.models.trip import Trip
from fleetops.models.vehicle import Vehicle
from fleetops.services.trip_service import driver_stats
from fleetops.store.trip_store import TripStore
from fleetops.store.vehicle_store import VehicleStore


class TestDriverStats(unittest.TestCase):
    def test_small_fleet(self):
        vehicles = VehicleStore(
            [Vehicle("VEH-0001", "AB-1", "MAN", 2019, "DEP-0001", "km", 9000.0, True)]
        )
        drivers = [
            Driver("DRV-0001", "Ana", "C", "DEP-0001", "2020-01-01", 20.0, True),
            Driver("DRV-0002", "Bo", "C", "DEP-0001", "2021-01-01", 21.0, True),
        ]
        trips = TripStore([
            Trip("TRP-0001", "RTE-0002", "DRV-0001", "VEH-0001", "2024-01-02", 100.0, "done"),
            Trip("TRP-0002", "RTE-0001", "DRV-0001", "VEH-0001", "2024-01-03", 50.0, "done"),
            Trip("TRP-0003", "RTE-0002", "DRV-0001", "VEH-0001", "2024-01-04", 70.0, "done"),
            Trip("TRP-0004", "RTE-0001", "DRV-0002", "VEH-0001", "2024-01-04", 80.0, "planned"),
        ])
        ana, bo = driver_stats(trips, drivers, vehicles)
        self.assertEqual((ana.trips, ana.km, ana.routes), (3, 220.0, ("RTE-0002", "RTE-0001")))
        self.assertEqual((bo.trips, bo.km, bo.routes), (0, 0.0, ()))


if __name__ == "__main__":
    unittest.main()
