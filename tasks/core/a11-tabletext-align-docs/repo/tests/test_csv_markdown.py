import unittest

from tabletext.csvrows import convert, read_csv
from tabletext.markdown import to_markdown


class TestCsvRows(unittest.TestCase):
    def test_convert(self):
        self.assertEqual(convert(" 12 "), 12)
        self.assertEqual(convert("3.5"), 3.5)
        self.assertEqual(convert("-.5"), -0.5)
        self.assertIsNone(convert(""))
        self.assertEqual(convert("12a"), "12a")

    def test_read_csv(self):
        rows = read_csv("item,qty,price\ntea,12,2.5\n\ncoffee,3\n")
        self.assertEqual(rows, [{"item": "tea", "qty": 12, "price": 2.5},
                                {"item": "coffee", "qty": 3, "price": None}])

    def test_read_csv_errors(self):
        with self.assertRaisesRegex(ValueError, "duplicate column"):
            read_csv("a,a\n1,2\n")
        with self.assertRaisesRegex(ValueError, "row 2 has 3 cells"):
            read_csv("a,b\n1,2,3\n")
        self.assertEqual(read_csv(""), [])


class TestMarkdown(unittest.TestCase):
    def test_default_alignment(self):
        rows = [{"item": "tea", "qty": 12}, {"item": "a|b", "qty": 3}]
        self.assertEqual(to_markdown(rows), "\n".join([
            "| item | qty |",
            "| :-- | --: |",
            "| tea | 12 |",
            "| a\\|b | 3 |",
        ]))

    def test_explicit_alignment(self):
        self.assertIn("| :-: |", to_markdown([{"x": 1}], align={"x": "center"}))
        with self.assertRaisesRegex(ValueError, "unknown alignment"):
            to_markdown([{"x": 1}], align={"x": "middle"})
