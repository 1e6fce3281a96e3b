import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("B4-01", "B4-02", 1), 90)

    def test_trip_2(self):
        self.assertEqual(trip_fare("D4-01", "D4-02", 1), 180)

    def test_trip_3(self):
        self.assertEqual(trip_fare("B4-02", "B4-03", 2), 135)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("B4-01", "B4-21", 1), 1450)

    def test_trip_2(self):
        self.assertEqual(trip_fare("D4-03", "D4-19", 1), 1148)

    def test_trip_3(self):
        self.assertEqual(trip_fare("A1-01", "A1-02", 1), 180)
