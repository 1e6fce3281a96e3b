import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("C3-14", "C3-10", 1), 378)

    def test_trip_2(self):
        self.assertEqual(trip_fare("C3-15", "C3-13", 1), 189)

    def test_trip_3(self):
        self.assertEqual(trip_fare("C3-13", "C3-16", 2), 486)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("C3-09", "C3-11", 1), 143)

    def test_trip_2(self):
        self.assertEqual(trip_fare("C3-18", "C3-20", 1), 143)

    def test_trip_3(self):
        self.assertEqual(trip_fare("C3-01", "C3-03", 1), 105)
