import unittest

from sizefmt.parse import parse_many, parse_size


class TestParse(unittest.TestCase):
    def test_plain_and_units(self):
        self.assertEqual(parse_size("512"), 512)
        self.assertEqual(parse_size("10K"), 10240)
        self.assertEqual(parse_size("1.5M"), 1572864)
        self.assertEqual(parse_size(" 2gib "), 2 * 1024**3)

    def test_underscores(self):
        self.assertEqual(parse_size("1_024"), 1024)

    def test_errors(self):
        for bad in ("", "K", "1.2.3M", "4X"):
            with self.assertRaises(ValueError):
                parse_size(bad)

    def test_many_names_position(self):
        with self.assertRaisesRegex(ValueError, "entry 2"):
            parse_many(["1K", "oops"])
