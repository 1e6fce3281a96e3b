import unittest
from datetime import date

from ledger.entries import Entry
from ledger.money import format_money, parse_money
from ledger.report import monthly_report


class TestLedger(unittest.TestCase):
    def test_money_round_trip(self):
        self.assertEqual(parse_money("$12.34"), 1234)
        self.assertEqual(format_money(1234), "$12.34")
        self.assertEqual(parse_money("7.5"), 750)

    def test_report_sales_only(self):
        entries = [Entry(date(2024, 1, 5), "sale", 1000), Entry(date(2024, 1, 9), "sale", 250)]
        self.assertEqual(
            monthly_report(entries), ["2024-01  sales $12.50  refunds $0.00  net $12.50"]
        )

    def test_bad_kind(self):
        with self.assertRaises(ValueError):
            Entry(date(2024, 1, 1), "gift", 100)
