import unittest

from timespan import format_duration, parse_duration


class TestParse(unittest.TestCase):
    def test_seconds(self):
        self.assertEqual(parse_duration("90s"), 90)

    def test_hours_minutes(self):
        self.assertEqual(parse_duration("1h30m"), 5400)

    def test_unknown_unit(self):
        with self.assertRaises(ValueError):
            parse_duration("3y")


class TestFormat(unittest.TestCase):
    def test_format(self):
        self.assertEqual(format_duration(5400), "1h30m")
        self.assertEqual(format_duration(0), "0s")


if __name__ == "__main__":
    unittest.main()
