import unittest

from isbnkit import isbn10, isbn13
from isbnkit.convert import to_isbn13


class TestIsbn10(unittest.TestCase):
    def test_valid(self):
        self.assertTrue(isbn10.is_valid("0-306-40615-2"))

    def test_check_digit_x(self):
        self.assertTrue(isbn10.is_valid("0-8044-2957-X"))

    def test_invalid(self):
        self.assertFalse(isbn10.is_valid("0-306-40615-3"))


class TestIsbn13(unittest.TestCase):
    def test_valid(self):
        self.assertTrue(isbn13.is_valid("978-0-306-40615-7"))

    def test_convert(self):
        self.assertEqual(to_isbn13("0-306-40615-2"), "9780306406157")


if __name__ == "__main__":
    unittest.main()
