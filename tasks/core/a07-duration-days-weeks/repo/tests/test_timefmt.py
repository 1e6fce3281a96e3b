import unittest

from timefmt import format_duration, parse_duration


class TestTimefmt(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration(" 2m 5s "), 125)

    def test_format(self):
        self.assertEqual(format_duration(5400), "1h30m")
        self.assertEqual(format_duration(0), "0s")

    def test_errors(self):
        for bad in ("", "5", "1x", "1h1h", "h1"):
            with self.assertRaises(ValueError):
                parse_duration(bad)
