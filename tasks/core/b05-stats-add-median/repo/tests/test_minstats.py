import unittest

from minstats import StatsError, mean, mode, stdev, value_range


class TestCentral(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)

    def test_mode(self):
        self.assertEqual(mode([3, 1, 3, 1, 2]), 1)

    def test_empty(self):
        with self.assertRaises(StatsError):
            mean([])


class TestSpread(unittest.TestCase):
    def test_range(self):
        self.assertEqual(value_range([4, 9, 1]), 8)

    def test_stdev(self):
        self.assertAlmostEqual(stdev([2, 4, 4, 4, 5, 5, 7, 9]), 2.138089935299395)


if __name__ == "__main__":
    unittest.main()
