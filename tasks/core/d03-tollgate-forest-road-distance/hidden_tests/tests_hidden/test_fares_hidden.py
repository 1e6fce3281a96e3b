import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("B2-09", "B2-11", 1), 120)

    def test_trip_2(self):
        self.assertEqual(trip_fare("B2-11", "B2-13", 1), 168)

    def test_trip_3(self):
        self.assertEqual(trip_fare("B2-06", "B2-11", 2), 483)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("B2-09", "B2-13", 1), 296)

    def test_trip_2(self):
        self.assertEqual(trip_fare("B2-12", "B2-15", 1), 224)

    def test_trip_3(self):
        self.assertEqual(trip_fare("B2-02", "B2-05", 3), 420)
