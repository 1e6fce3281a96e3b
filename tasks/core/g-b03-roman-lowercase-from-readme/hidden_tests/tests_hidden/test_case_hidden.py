import unittest

from numerals.roman import from_roman, to_roman


class TestCaseInsensitive(unittest.TestCase):
    def test_lower_case(self):
        self.assertEqual(from_roman("mmxxiv"), 2024)

    def test_mixed_case(self):
        self.assertEqual(from_roman("xIv"), 14)
        self.assertEqual(from_roman("  cdxliv "), 444)

    def test_round_trip_lower(self):
        for n in (1, 4, 9, 14, 40, 90, 400, 1994, 3999):
            self.assertEqual(from_roman(to_roman(n).lower()), n)


class TestUnchanged(unittest.TestCase):
    def test_still_rejects(self):
        for bad in ("", "iiii", "VX", "vx", "ABC", "MMMM"):
            with self.assertRaises(ValueError, msg=bad):
                from_roman(bad)

    def test_upper(self):
        self.assertEqual(from_roman("MCMXCIV"), 1994)


if __name__ == "__main__":
    unittest.main()
