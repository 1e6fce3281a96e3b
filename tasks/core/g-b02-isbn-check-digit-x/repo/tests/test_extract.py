import unittest

from isbnkit.extract import find_isbns, kind


class TestExtract(unittest.TestCase):
    def test_find(self):
        text = ("Please send ISBN 978-0-306-40615-7 (2 copies) and ISBN-10: 0 306 40615 2.\n"
                "Order ref 1234567890123 is not an ISBN. Again: 9780306406157.")
        self.assertEqual(find_isbns(text), ["9780306406157", "0306406152"])

    def test_nothing(self):
        self.assertEqual(find_isbns("no numbers here, phone 555-0100"), [])

    def test_kind(self):
        self.assertEqual(kind("978-0-306-40615-7"), "ISBN-13")
        self.assertEqual(kind("0-306-40615-2"), "ISBN-10")
        self.assertIsNone(kind("12345"))
