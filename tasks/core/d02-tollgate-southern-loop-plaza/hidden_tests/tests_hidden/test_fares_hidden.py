import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("D1-18", "D1-10", 1), 730)

    def test_trip_2(self):
        self.assertEqual(trip_fare("D1-11", "D1-18", 1), 620)

    def test_trip_3(self):
        self.assertEqual(trip_fare("D1-18", "D1-12", 3), 1020)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("D1-17", "D1-10", 1), 650)

    def test_trip_2(self):
        self.assertEqual(trip_fare("D1-19", "D1-23", 1), 484)

    def test_trip_3(self):
        self.assertEqual(trip_fare("D1-03", "D1-06", 1), 180)
