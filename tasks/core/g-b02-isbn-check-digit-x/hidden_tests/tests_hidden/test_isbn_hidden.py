import unittest

from isbnkit import isbn10
from isbnkit.convert import to_isbn13


class TestCheckX(unittest.TestCase):
    def test_upper_case_x(self):
        self.assertTrue(isbn10.is_valid("0-8044-2957-X"))
        self.assertTrue(isbn10.is_valid("080442957X"))

    def test_lower_case_x_still_accepted(self):
        self.assertTrue(isbn10.is_valid("0-8044-2957-x"))

    def test_convert_isbn_with_x(self):
        self.assertEqual(to_isbn13("0-8044-2957-X"), "9780804429573")


class TestUnchanged(unittest.TestCase):
    def test_x_only_valid_when_check_is_ten(self):
        self.assertFalse(isbn10.is_valid("0-306-40615-X"))

    def test_x_not_allowed_in_body(self):
        self.assertFalse(isbn10.is_valid("0-306-4X615-2"))

    def test_digits(self):
        self.assertTrue(isbn10.is_valid("0 306 40615 2"))
        self.assertEqual(isbn10.check_character("080442957"), "X")


if __name__ == "__main__":
    unittest.main()
