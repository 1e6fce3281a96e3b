import unittest
from datetime import date

from ledger.categories import UNCATEGORISED, by_category, category, sales_by_category
from ledger.entries import Entry
from ledger.period import between, in_month, in_quarter, parse_month, quarter

ENTRIES = [
    Entry(date(2024, 3, 5), "sale", 1250, "2 mugs #Kitchen"),
    Entry(date(2024, 3, 6), "refund", 400, "chipped mug #kitchen"),
    Entry(date(2024, 4, 2), "sale", 3000, "gift card"),
    Entry(date(2024, 7, 1), "sale", 500, "#garden seeds #sale"),
]


class TestCategories(unittest.TestCase):
    def test_category(self):
        self.assertEqual(category(ENTRIES[0]), "kitchen")
        self.assertEqual(category(ENTRIES[2]), UNCATEGORISED)
        self.assertEqual(category(ENTRIES[3]), "garden")

    def test_groups(self):
        self.assertEqual(list(by_category(ENTRIES)), ["garden", "kitchen", "uncategorised"])
        self.assertEqual(sales_by_category(ENTRIES)["kitchen"], 1250)


class TestPeriod(unittest.TestCase):
    def test_between(self):
        self.assertEqual(between(ENTRIES, date(2024, 3, 6), date(2024, 4, 30)), ENTRIES[1:3])
        with self.assertRaises(ValueError):
            between(ENTRIES, date(2024, 5, 1), date(2024, 4, 1))

    def test_months_and_quarters(self):
        self.assertEqual(parse_month("2024-03"), (2024, 3))
        with self.assertRaises(ValueError):
            parse_month("2024-13")
        self.assertEqual(in_month(ENTRIES, "2024-03"), ENTRIES[:2])
        self.assertEqual(quarter(date(2024, 4, 2)), "2024-Q2")
        self.assertEqual(in_quarter(ENTRIES, "2024-Q3"), ENTRIES[3:])
