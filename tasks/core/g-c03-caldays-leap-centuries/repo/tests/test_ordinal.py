import unittest

from caldays.ordinal import day_of_year, days_between, from_ordinal, to_ordinal
from caldays.weekday import is_weekend, weekday, weekday_name


class TestOrdinal(unittest.TestCase):
    def test_day_of_year(self):
        self.assertEqual(day_of_year(2023, 1, 1), 1)
        self.assertEqual(day_of_year(2024, 3, 1), 61)
        self.assertEqual(day_of_year(2023, 12, 31), 365)

    def test_known_ordinals(self):
        self.assertEqual(to_ordinal(1, 1, 1), 1)
        self.assertEqual(to_ordinal(2024, 1, 1), 738886)

    def test_round_trip(self):
        for date in ((1, 1, 1), (1999, 12, 31), (2000, 2, 29), (2024, 7, 4)):
            self.assertEqual(from_ordinal(to_ordinal(*date)), date)

    def test_days_between(self):
        self.assertEqual(days_between((2024, 1, 1), (2025, 1, 1)), 366)
        self.assertEqual(days_between((2024, 3, 1), (2024, 2, 28)), -2)


class TestWeekday(unittest.TestCase):
    def test_weekdays(self):
        self.assertEqual(weekday(2024, 7, 4), 3)
        self.assertEqual(weekday_name(2000, 1, 1), "Saturday")
        self.assertEqual(weekday_name(2023, 12, 25, short=True), "Mon")

    def test_weekend(self):
        self.assertTrue(is_weekend(2024, 6, 9))
        self.assertFalse(is_weekend(2024, 6, 10))
