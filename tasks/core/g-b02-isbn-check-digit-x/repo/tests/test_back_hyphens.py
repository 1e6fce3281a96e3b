import unittest

from isbnkit.back import has_isbn10, to_isbn10
from isbnkit.convert import to_isbn13
from isbnkit.hyphens import hyphenate10, hyphenate13


class TestBack(unittest.TestCase):
    def test_to_isbn10(self):
        self.assertEqual(to_isbn10("978-0-306-40615-7"), "0306406152")

    def test_round_trip(self):
        self.assertEqual(to_isbn10(to_isbn13("0-306-40615-2")), "0306406152")

    def test_979_has_no_isbn10(self):
        self.assertFalse(has_isbn10("979-10-90636-07-1"))
        with self.assertRaisesRegex(ValueError, "no ISBN-10 form"):
            to_isbn10("979-10-90636-07-1")

    def test_invalid(self):
        with self.assertRaises(ValueError):
            to_isbn10("978-0-306-40615-8")


class TestHyphens(unittest.TestCase):
    def test_hyphenate(self):
        self.assertEqual(hyphenate13("9780306406157", 1, 3), "978-0-306-40615-7")
        self.assertEqual(hyphenate10("0306406152", 1, 3), "0-306-40615-2")

    def test_bad_lengths(self):
        with self.assertRaises(ValueError):
            hyphenate13("9780306406157", 5, 5)
        with self.assertRaises(ValueError):
            hyphenate10("12345", 1, 3)
