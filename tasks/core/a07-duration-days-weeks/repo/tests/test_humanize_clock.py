import unittest

from timefmt.clock import format_clock, parse_clock
from timefmt.humanize import ago, humanize, split_units


class TestHumanize(unittest.TestCase):
    def test_humanize(self):
        self.assertEqual(humanize(5400), "1 hour 30 minutes")
        self.assertEqual(humanize(3661), "1 hour 1 minute")
        self.assertEqual(humanize(3661, max_parts=3), "1 hour 1 minute 1 second")
        self.assertEqual(humanize(0), "0 seconds")

    def test_split_units(self):
        self.assertEqual(split_units(125), [(2, "m"), (5, "s")])
        with self.assertRaises(ValueError):
            split_units(-1)

    def test_ago(self):
        self.assertEqual(ago(3), "just now")
        self.assertEqual(ago(125), "2 minutes ago")
        self.assertEqual(ago(7200), "2 hours ago")


class TestClock(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_clock("1:02:03"), 3723)
        self.assertEqual(parse_clock(" 02:03 "), 123)
        self.assertEqual(parse_clock("90:00"), 5400)

    def test_parse_errors(self):
        for bad in ("", "1:2:3", "1:75:00", "2:61", "abc"):
            with self.assertRaises(ValueError):
                parse_clock(bad)

    def test_format(self):
        self.assertEqual(format_clock(3723), "1:02:03")
        self.assertEqual(format_clock(123), "2:03")
        self.assertEqual(format_clock(123, always_hours=True), "0:02:03")

    def test_round_trip(self):
        for seconds in (0, 59, 60, 3599, 3600, 86399):
            self.assertEqual(parse_clock(format_clock(seconds)), seconds)
