import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("A3-03", "A3-10", 1, hour=23, green=True), 277)

    def test_trip_2(self):
        self.assertEqual(trip_fare("A3-03", "A3-10", 1, hour=2, trips_this_month=25), 317)

    def test_trip_3(self):
        self.assertEqual(trip_fare("A3-03", "A3-10", 2, hour=12, green=True, trips_this_month=30), 416)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("A3-03", "A3-10", 1, hour=23), 317)

    def test_trip_2(self):
        self.assertEqual(trip_fare("A3-03", "A3-10", 1), 396)

    def test_trip_3(self):
        self.assertEqual(trip_fare("A3-03", "A3-10", 1, green=True), 277)
