import unittest

from timespan import format_duration, parse_duration


class TestDaysAndWeeks(unittest.TestCase):
    def test_days(self):
        self.assertEqual(parse_duration("2d 12h"), 216000)

    def test_weeks(self):
        self.assertEqual(parse_duration("1w"), 604800)

    def test_upper_case_day(self):
        self.assertEqual(parse_duration("1D"), 86400)

    def test_format_uses_largest_units(self):
        self.assertEqual(format_duration(694800), "1w1d1h")


class TestUnchanged(unittest.TestCase):
    def test_hours(self):
        self.assertEqual(parse_duration("1H 5s"), 3605)

    def test_errors(self):
        for bad in ("", "5", "3y", "h"):
            with self.assertRaises(ValueError, msg=bad):
                parse_duration(bad)

    def test_format_small(self):
        self.assertEqual(format_duration(61), "1m1s")


if __name__ == "__main__":
    unittest.main()
