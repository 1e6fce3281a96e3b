import signal
import unittest
from contextlib import contextmanager

from fleetops.models.driver import Driver
from fleetops.models.trip import Trip
from fleetops.models.vehicle import Vehicle
from fleetops.reports.trips_by_driver import trips_report
from fleetops.services.trip_service import driver_stats
from fleetops.store.driver_store import DriverStore
from fleetops.store.trip_store import TripStore
from fleetops.store.vehicle_store import VehicleStore

N_DRIVERS = 4000
N_VEHICLES = 40
N_TRIPS = 40000
STATUSES = ("done", "done", "done", "planned", "cancelled")


class Slow(Exception):
    pass


@contextmanager
def deadline(seconds):
    """Fail (rather than hang) when the block runs longer than `seconds`."""

    def expired(signum, frame):
        raise Slow(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def fleet():
    vehicles = VehicleStore(
        Vehicle(f"VEH-{v:04d}", f"P-{v}", "DAF", 2020, "DEP-0001", "mi" if v % 4 == 0 else "km",
                10000.0, True)
        for v in range(1, N_VEHICLES + 1)
    )
    drivers = DriverStore(
        Driver(f"DRV-{d:04d}", f"Driver {d}", "C", "DEP-0001", "2020-01-01", 20.0, True)
        for d in range(1, N_DRIVERS + 1)
    )
    trips = TripStore(
        Trip(
            f"TRP-{t:05d}",
            f"RTE-{t % 37 + 1:04d}",
            f"DRV-{(t * 7919) % N_DRIVERS + 1:04d}",
            f"VEH-{t % N_VEHICLES + 1:04d}",
            f"2024-0{t % 9 + 1}-1{t % 10}",
            float(t % 300 + 10),
            STATUSES[t % len(STATUSES)],
        )
        for t in range(1, N_TRIPS + 1)
    )
    return trips, drivers, vehicles


class TestLargeFleet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.trips, cls.drivers, cls.vehicles = fleet()

    def test_driver_stats_is_fast(self):
        with deadline(5):
            stats = driver_stats(self.trips, self.drivers.all(), self.vehicles)
        self.assertEqual(len(stats), N_DRIVERS)
        self.assertEqual(sum(s.trips for s in stats), N_TRIPS * 3 // 5)

    def test_report_is_fast(self):
        with deadline(5):
            table = trips_report(self.trips, self.drivers, self.vehicles)
        self.assertEqual(len(table.rows), N_DRIVERS)


class TestSmallFleetUnchanged(unittest.TestCase):
    def test_semantics(self):
        vehicles = VehicleStore([
            Vehicle("VEH-0001", "A", "MAN", 2019, "DEP-0001", "km", 9000.0, True),
            Vehicle("VEH-0002", "B", "MAN", 2019, "DEP-0001", "mi", 9000.0, True),
        ])
        drivers = [
            Driver("DRV-0002", "Bo", "C", "DEP-0001", "2021-01-01", 21.0, True),
            Driver("DRV-0001", "Ana", "C", "DEP-0001", "2020-01-01", 20.0, True),
        ]
        trips = TripStore([
            Trip("TRP-0001", "RTE-0003", "DRV-0001", "VEH-0002", "2024-01-02", 10.0, "done"),
            Trip("TRP-0002", "RTE-0001", "DRV-0001", "VEH-0001", "2024-01-03", 50.0, "done"),
            Trip("TRP-0003", "RTE-0003", "DRV-0001", "VEH-0001", "2024-01-04", 70.0, "done"),
            Trip("TRP-0004", "RTE-0002", "DRV-0001", "VEH-0001", "2024-01-05", 99.0, "cancelled"),
            Trip("TRP-0005", "RTE-0001", "DRV-0002", "VEH-0001", "2024-01-04", 80.0, "planned"),
        ])
        bo, ana = driver_stats(trips, drivers, vehicles)
        self.assertEqual((bo.driver_id, bo.trips, bo.km, bo.routes), ("DRV-0002", 0, 0.0, ()))
        self.assertEqual(ana.routes, ("RTE-0003", "RTE-0001"))
        self.assertEqual(ana.trips, 3)
        self.assertAlmostEqual(ana.km, 136.093)


if __name__ == "__main__":
    unittest.main()
