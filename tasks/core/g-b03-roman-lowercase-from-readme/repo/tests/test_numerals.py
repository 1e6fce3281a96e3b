import unittest

from numerals.roman import from_roman, to_roman
from numerals.words import ordinal


class TestRoman(unittest.TestCase):
    def test_to_roman(self):
        self.assertEqual(to_roman(2024), "MMXXIV")
        self.assertEqual(to_roman(3999), "MMMCMXCIX")

    def test_from_roman(self):
        self.assertEqual(from_roman("MMXXIV"), 2024)
        self.assertEqual(from_roman(" XLII "), 42)

    def test_non_canonical(self):
        with self.assertRaises(ValueError):
            from_roman("IIII")


class TestWords(unittest.TestCase):
    def test_ordinal(self):
        self.assertEqual([ordinal(n) for n in (1, 2, 3, 11, 22)],
                         ["1st", "2nd", "3rd", "11th", "22nd"])


if __name__ == "__main__":
    unittest.main()
