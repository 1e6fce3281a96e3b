import unittest
from datetime import date

from ledger.entries import Entry
from ledger.export import to_csv
from ledger.money import format_money
from ledger.report import monthly_report
from ledger.summary import summarise

MARCH = [
    Entry(date(2024, 3, 1), "sale", 12000),
    Entry(date(2024, 3, 2), "sale", 3000),
    Entry(date(2024, 3, 9), "refund", 2500),
]


class TestFormat(unittest.TestCase):
    def test_negative(self):
        self.assertEqual(format_money(-2500), "-$25.00")
        self.assertEqual(format_money(-5), "-$0.05")
        self.assertIn("2024-03-09,refund,-$25.00,", to_csv(MARCH))

    def test_positive(self):
        self.assertEqual(format_money(5), "$0.05")
        self.assertEqual(format_money(0), "$0.00")


class TestSummary(unittest.TestCase):
    def test_net_subtracts_refunds(self):
        s = summarise(MARCH)["2024-03"]
        self.assertEqual((s.sales, s.refunds, s.net), (15000, 2500, 12500))

    def test_month_without_refunds(self):
        s = summarise([Entry(date(2024, 2, 1), "sale", 700)])["2024-02"]
        self.assertEqual(s.net, 700)


class TestReport(unittest.TestCase):
    def test_march_line(self):
        self.assertEqual(
            monthly_report(MARCH), ["2024-03  sales $150.00  refunds -$25.00  net $125.00"]
        )

    def test_months_sorted(self):
        entries = [Entry(date(2024, 5, 1), "sale", 100), Entry(date(2024, 4, 1), "sale", 100)]
        self.assertEqual([line[:7] for line in monthly_report(entries)], ["2024-04", "2024-05"])
