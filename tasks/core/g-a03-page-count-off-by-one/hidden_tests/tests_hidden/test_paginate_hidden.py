import unittest

from pager.labels import page_label
from pager.paginate import page_count, page_items


class TestPageCount(unittest.TestCase):
    def test_partial_last_page(self):
        self.assertEqual(page_count(45, 20), 3)
        self.assertEqual(page_count(1, 20), 1)
        self.assertEqual(page_count(21, 20), 2)
        self.assertEqual(page_label(3, 45, 20), "page 3 of 3")

    def test_exact_multiple(self):
        self.assertEqual(page_count(40, 20), 2)
        self.assertEqual(page_count(20, 20), 1)

    def test_empty(self):
        self.assertEqual(page_count(0, 20), 1)


class TestPages(unittest.TestCase):
    def test_last_page_items(self):
        self.assertEqual(page_items(list(range(45)), 3, 20), [40, 41, 42, 43, 44])

    def test_first_page(self):
        self.assertEqual(page_items(list(range(45)), 1, 20), list(range(20)))
