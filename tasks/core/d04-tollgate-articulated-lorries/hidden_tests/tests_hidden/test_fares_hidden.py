import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("C1-04", "C1-16", 4), 2433)

    def test_trip_2(self):
        self.assertEqual(trip_fare("C1-01", "C1-24", 4), 5800)

    def test_trip_3(self):
        self.assertEqual(trip_fare("C1-06", "C1-10", 4, hour=23), 480)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("C1-04", "C1-16", 3), 1946)

    def test_trip_2(self):
        self.assertEqual(trip_fare("C1-04", "C1-16", 2), 1460)

    def test_trip_3(self):
        self.assertEqual(trip_fare("C1-04", "C1-16", 5), 3892)
