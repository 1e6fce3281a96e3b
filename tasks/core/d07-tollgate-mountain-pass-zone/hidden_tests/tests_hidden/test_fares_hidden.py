import unittest

from tollgate.fare import trip_fare


class TestReported(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("D2-03", "D2-22", 1), 765)

    def test_trip_2(self):
        self.assertEqual(trip_fare("D2-06", "D2-14", 1), 402)

    def test_trip_3(self):
        self.assertEqual(trip_fare("D2-01", "D2-24", 2), 1358)


class TestUnchanged(unittest.TestCase):
    def test_trip_1(self):
        self.assertEqual(trip_fare("D2-22", "D2-03", 1), 1445)

    def test_trip_2(self):
        self.assertEqual(trip_fare("B3-03", "B3-22", 1), 788)

    def test_trip_3(self):
        self.assertEqual(trip_fare("A3-03", "A3-22", 1), 1710)
