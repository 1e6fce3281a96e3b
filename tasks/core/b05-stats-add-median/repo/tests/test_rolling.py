import unittest

from minstats.errors import StatsError
from minstats.rolling import differences, exponential_smoothing, moving_average, moving_sum


class TestRolling(unittest.TestCase):
    def test_moving_sum(self):
        self.assertEqual(moving_sum([1, 2, 3, 4], 2), [3, 5, 7])
        self.assertEqual(moving_sum([1, 2], 3), [])
        with self.assertRaises(StatsError):
            moving_sum([1, 2], 0)

    def test_moving_average(self):
        self.assertEqual(moving_average([2, 4, 6, 8], 2), [3.0, 5.0, 7.0])

    def test_smoothing(self):
        self.assertEqual(exponential_smoothing([10, 20, 20], 0.5), [10, 15.0, 17.5])
        self.assertEqual(exponential_smoothing([], 0.5), [])
        with self.assertRaises(StatsError):
            exponential_smoothing([1], 0)

    def test_differences(self):
        self.assertEqual(differences([1, 4, 2]), [3, -2])
