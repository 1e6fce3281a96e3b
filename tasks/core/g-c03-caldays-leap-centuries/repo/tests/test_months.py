import unittest

from caldays.leap import is_leap, year_length
from caldays.months import check_date, days_in_month, month_name


class TestLeap(unittest.TestCase):
    def test_common_cases(self):
        self.assertTrue(is_leap(2024))
        self.assertFalse(is_leap(2023))
        self.assertFalse(is_leap(1900))
        self.assertTrue(is_leap(2000))

    def test_year_length(self):
        self.assertEqual(year_length(2024), 366)
        self.assertEqual(year_length(2023), 365)


class TestMonths(unittest.TestCase):
    def test_lengths(self):
        self.assertEqual(days_in_month(2023, 2), 28)
        self.assertEqual(days_in_month(2024, 2), 29)
        self.assertEqual(days_in_month(2024, 4), 30)
        self.assertEqual(days_in_month(2024, 12), 31)

    def test_names(self):
        self.assertEqual(month_name(3), "March")
        self.assertEqual(month_name(9, short=True), "Sep")

    def test_bad_month(self):
        with self.assertRaisesRegex(ValueError, "month must be 1-12"):
            days_in_month(2024, 13)

    def test_check_date(self):
        check_date(2024, 2, 29)
        with self.assertRaisesRegex(ValueError, "day must be 1-28 in February 2023"):
            check_date(2023, 2, 29)
