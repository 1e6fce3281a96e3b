import unittest

from textcols.box import box
from textcols.columns import columns, widths
from textcols.pad import right


class TestRight(unittest.TestCase):
    def test_right(self):
        self.assertEqual(right("42", 5), "   42")
        self.assertEqual(right("toolong", 3), "toolong")
        self.assertEqual(right("7", 3, "0"), "007")


class TestColumns(unittest.TestCase):
    def test_widths(self):
        self.assertEqual(widths([["ab", 1], ["c", 100]]), [2, 3])

    def test_alignment(self):
        lines = columns([["name", "runs"], ["lint", 3], ["test", 12]])
        self.assertEqual(lines, ["name  runs", "lint     3", "test    12"])

    def test_numbers_left_when_asked(self):
        self.assertEqual(columns([[1, "x"], [100, "y"]], numeric_right=False)[0], "1    x")

    def test_empty(self):
        self.assertEqual(columns([]), [])


class TestBox(unittest.TestCase):
    def test_ascii(self):
        self.assertEqual(box(["hi", "there"]), [
            "+-------+",
            "| hi    |",
            "| there |",
            "+-------+",
        ])

    def test_unknown_style(self):
        with self.assertRaisesRegex(ValueError, "unknown style"):
            box(["x"], style="fancy")
