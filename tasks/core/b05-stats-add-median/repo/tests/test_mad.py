import unittest

from minstats.errors import StatsError
from minstats.spread import mean_absolute_deviation


class TestMad(unittest.TestCase):
    def test_mad(self):
        self.assertEqual(mean_absolute_deviation([1, 2, 3, 4]), 1.0)
        with self.assertRaises(StatsError):
            mean_absolute_deviation([])
