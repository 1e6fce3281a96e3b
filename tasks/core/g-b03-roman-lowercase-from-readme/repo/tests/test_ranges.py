import unittest

from numerals.ranges import format_ranges, page_count, parse_ranges


class TestRanges(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_ranges("1-3, 7, 10-12"), [1, 2, 3, 7, 10, 11, 12])
        self.assertEqual(parse_ranges("5, 4-5,"), [4, 5])

    def test_parse_errors(self):
        for bad in ("0-2", "5-3", "a-b", "1-"):
            with self.assertRaises(ValueError):
                parse_ranges(bad)

    def test_format_round_trip(self):
        self.assertEqual(format_ranges([12, 1, 2, 3, 7, 10, 11, 2]), "1-3, 7, 10-12")
        self.assertEqual(format_ranges([]), "")
        self.assertEqual(page_count("1-3, 7, 10-12"), 7)
