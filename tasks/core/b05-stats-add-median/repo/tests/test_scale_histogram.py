import unittest

from minstats.errors import StatsError
from minstats.histogram import bin_edges, histogram, text_bars
from minstats.scale import normalize, outliers, zscores


class TestScale(unittest.TestCase):
    def test_zscores(self):
        z = zscores([2, 4, 6])
        self.assertEqual(z, [-1.0, 0.0, 1.0])
        with self.assertRaises(StatsError):
            zscores([3, 3, 3])

    def test_normalize(self):
        self.assertEqual(normalize([10, 15, 20]), [0.0, 0.5, 1.0])
        self.assertEqual(normalize([1, 3], -1, 1), [-1.0, 1.0])
        with self.assertRaises(StatsError):
            normalize([])

    def test_outliers(self):
        readings = [20.1, 20.3, 19.9, 20.0, 20.2, 35.0, 20.1, 19.8]
        self.assertEqual(outliers(readings, threshold=2.0), [5])


class TestHistogram(unittest.TestCase):
    def test_edges(self):
        self.assertEqual(bin_edges(0, 10, 2), [0.0, 5.0, 10])

    def test_counts(self):
        edges, counts = histogram([0, 1, 4, 5, 9, 10], bins=2)
        self.assertEqual(edges, [0.0, 5.0, 10])
        self.assertEqual(counts, [3, 3])
        self.assertEqual(histogram([1, 50], bins=2, low=0, high=10)[1], [1, 0])

    def test_bars(self):
        self.assertEqual(text_bars([1, 2, 4], width=4), ["#", "##", "####"])
        self.assertEqual(text_bars([0, 0]), ["", ""])
