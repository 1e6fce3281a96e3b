import unittest

from tollgate.fare import TripError, trip_fare


class TestFare(unittest.TestCase):
    def test_a_car_trip_on_a1(self):
        self.assertEqual(trip_fare("A1-01", "A1-04"), 180)

    def test_direction_does_not_matter_on_a1(self):
        self.assertEqual(trip_fare("Larch Fields", "Yarrow Hill"), 180)

    def test_different_roads_are_refused(self):
        with self.assertRaises(TripError):
            trip_fare("A1-01", "B1-01")
