import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("A1-01", "A1-24", 3), 1450)

    def test_trip_2(self):
        self.assertEqual(trip_fare("A1-03", "A1-21", 4), 1450)

    def test_trip_3(self):
        self.assertEqual(trip_fare("A1-01", "A1-24", 2), 1450)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("A1-01", "A1-24", 1), 1450)

    def test_trip_2(self):
        self.assertEqual(trip_fare("A1-01", "A1-04", 3), 360)

    def test_trip_3(self):
        self.assertEqual(trip_fare("C1-01", "C1-24", 3), 4640)
