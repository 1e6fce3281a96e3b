import unittest

from pager.labels import range_label


class TestRangeLabel(unittest.TestCase):
    def test_full_and_partial_pages(self):
        self.assertEqual(range_label(2, 20, 45), "showing 21-40 of 45")
        self.assertEqual(range_label(3, 20, 45), "showing 41-45 of 45")

    def test_empty(self):
        self.assertEqual(range_label(1, 20, 0), "no results")

    def test_past_the_end(self):
        with self.assertRaises(ValueError):
            range_label(4, 20, 45)
