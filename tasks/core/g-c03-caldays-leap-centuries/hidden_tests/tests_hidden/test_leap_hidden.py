import datetime
import unittest

from caldays.leap import is_leap, year_length
from caldays.months import days_in_month
from caldays.ordinal import day_of_year, from_ordinal, to_ordinal


class TestCenturies(unittest.TestCase):
    def test_centuries_not_divisible_by_400(self):
        for year in (1700, 1800, 2100, 2200, 2300):
            self.assertFalse(is_leap(year), year)
        self.assertEqual(year_length(1800), 365)

    def test_february_1800(self):
        self.assertEqual(days_in_month(1800, 2), 28)
        self.assertEqual(day_of_year(1800, 3, 1), 60)

    def test_matches_datetime(self):
        for year in range(1600, 2401, 40):
            for month, day in ((2, 28), (3, 1), (12, 31)):
                expected = datetime.date(year, month, day).toordinal()
                self.assertEqual(to_ordinal(year, month, day), expected, (year, month, day))


class TestUnchanged(unittest.TestCase):
    def test_ordinary_years(self):
        self.assertTrue(is_leap(1600) and is_leap(2000) and is_leap(2024))
        self.assertFalse(is_leap(1900) or is_leap(2023))

    def test_round_trip(self):
        self.assertEqual(from_ordinal(to_ordinal(2024, 2, 29)), (2024, 2, 29))
