import unittest

from pantry import Inventory, Item
from pantry.alerts import expired, expiring_within
from pantry.report import morning_report


def stock():
    inv = Inventory()
    inv.add(Item("yoghurt", 3, "2024-05-01", "fridge"))
    inv.add(Item("milk", 4, "2024-05-04", "fridge"))
    inv.add(Item("apples", 9, "2024-05-02"))
    inv.add(Item("bread", 2, "2024-04-28"))
    inv.add(Item("butter", 1, "2024-04-30", "fridge"))
    inv.add(Item("rice", 10, "2025-01-01"))
    return inv


class TestBoundaries(unittest.TestCase):
    def test_expiring_today_included(self):
        names = {i.name for i in expiring_within(stock(), "2024-05-01", 3)}
        self.assertIn("yoghurt", names)

    def test_last_day_included(self):
        names = {i.name for i in expiring_within(stock(), "2024-05-01", 3)}
        self.assertEqual(names, {"yoghurt", "apples", "milk"})

    def test_zero_days_means_today_only(self):
        self.assertEqual([i.name for i in expiring_within(stock(), "2024-05-01", 0)], ["yoghurt"])


class TestReportOrder(unittest.TestCase):
    def test_report_soonest_first(self):
        text = morning_report(stock(), "2024-05-01", days=3)
        self.assertEqual(text.splitlines(), [
            "EXPIRED",
            "  bread          2  shelf    expires 2024-04-28 (3 days ago)",
            "  butter         1  fridge   expires 2024-04-30 (1 day ago)",
            "EXPIRING",
            "  yoghurt        3  fridge   expires 2024-05-01 (today)",
            "  apples         9  shelf    expires 2024-05-02 (in 1 day)",
            "  milk           4  fridge   expires 2024-05-04 (in 3 days)",
        ])


class TestUnchanged(unittest.TestCase):
    def test_expired(self):
        self.assertEqual(sorted(i.name for i in expired(stock(), "2024-05-01")), ["bread", "butter"])

    def test_negative_days(self):
        with self.assertRaises(ValueError):
            expiring_within(stock(), "2024-05-01", -1)

    def test_empty_sections(self):
        text = morning_report(Inventory(), "2024-05-01")
        self.assertEqual(text.splitlines(), ["EXPIRED", "  (none)", "EXPIRING", "  (none)"])


if __name__ == "__main__":
    unittest.main()
