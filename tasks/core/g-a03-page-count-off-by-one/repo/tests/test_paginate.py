import unittest

from pager.labels import page_label
from pager.paginate import page_count, page_items, page_window


class TestPaginate(unittest.TestCase):
    def test_exact(self):
        self.assertEqual(page_count(40, 20), 2)

    def test_items(self):
        self.assertEqual(page_items(list(range(10)), 2, 4), [4, 5, 6, 7])

    def test_window(self):
        self.assertEqual(page_window(1, 10), [1, 2, 3, 4, 5])
        self.assertEqual(page_window(10, 10), [6, 7, 8, 9, 10])

    def test_label(self):
        self.assertEqual(page_label(1, 40, 20), "page 1 of 2")
