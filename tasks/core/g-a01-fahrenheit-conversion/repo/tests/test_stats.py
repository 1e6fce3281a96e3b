import unittest

from thermo.stats import daily_summary, frost_hours


class TestStats(unittest.TestCase):
    def test_summary(self):
        self.assertEqual(daily_summary([12.5, 14.0, 9.5]), {"min": 9.5, "max": 14.0, "mean": 12.0})

    def test_frost_hours(self):
        self.assertEqual(frost_hours([1.0, 0.0, -2.5, 3.0]), 2)
