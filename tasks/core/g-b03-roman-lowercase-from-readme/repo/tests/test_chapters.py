import unittest

from numerals.chapters import label, parse_label, table_of_contents


class TestChapters(unittest.TestCase):
    def test_label(self):
        self.assertEqual(label("chapter", 14), "Chapter XIV")
        self.assertEqual(label("volume", 3), "Vol. III")
        with self.assertRaisesRegex(ValueError, "unknown label kind"):
            label("section", 1)

    def test_parse_label(self):
        self.assertEqual(parse_label("Chapter XIV"), ("chapter", 14))
        self.assertEqual(parse_label("VOL. III"), ("volume", 3))
        with self.assertRaises(ValueError):
            parse_label("Chapter")
        with self.assertRaises(ValueError):
            parse_label("Appendix A")

    def test_toc(self):
        self.assertEqual(table_of_contents(["Dawn", "Noon"]),
                         ["Chapter I. Dawn", "Chapter II. Noon"])
