import unittest

from timefmt import format_duration, parse_duration


class TestParse(unittest.TestCase):
    def test_days_and_weeks(self):
        self.assertEqual(parse_duration("2d"), 172800)
        self.assertEqual(parse_duration("1w"), 604800)
        self.assertEqual(parse_duration("1w2d3h"), 604800 + 172800 + 10800)

    def test_hours_minutes_seconds(self):
        self.assertEqual(parse_duration("1h1m1s"), 3661)

    def test_rejects_unknown_unit(self):
        with self.assertRaises(ValueError):
            parse_duration("3y")


class TestFormat(unittest.TestCase):
    def test_days_and_weeks(self):
        self.assertEqual(format_duration(90061), "1d1h1m1s")
        self.assertEqual(format_duration(1209600), "2w")

    def test_round_trip_long(self):
        self.assertEqual(format_duration(parse_duration("1w2d3h")), "1w2d3h")

    def test_short(self):
        self.assertEqual(format_duration(125), "2m5s")

    def test_zero(self):
        self.assertEqual(format_duration(0), "0s")
