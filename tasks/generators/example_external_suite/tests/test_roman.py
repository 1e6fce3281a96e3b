import unittest

from roman import to_roman


class TestRoman(unittest.TestCase):
    def test_single_symbols(self):
        self.assertEqual(to_roman(1), "I")
        self.assertEqual(to_roman(1000), "M")

    def test_repeats(self):
        self.assertEqual(to_roman(3), "III")
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(2024), "MMXXIV")

    def test_range(self):
        with self.assertRaises(ValueError):
            to_roman(0)
