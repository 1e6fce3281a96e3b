import unittest

from textcols.lists import bullets, indent, numbered


class TestLists(unittest.TestCase):
    def test_indent_skips_empty(self):
        self.assertEqual(indent(["a", "", "b"]), ["  a", "", "  b"])

    def test_bullets_hang(self):
        self.assertEqual(bullets(["fix the flaky build step"], width=14), [
            "- fix the",
            "  flaky build",
            "  step",
        ])

    def test_bullets_marker(self):
        self.assertEqual(bullets(["x", "y"], marker="*"), ["* x", "* y"])

    def test_numbered_alignment(self):
        lines = numbered([f"item {n}" for n in range(10)])
        self.assertEqual(lines[0], " 1. item 0")
        self.assertEqual(lines[9], "10. item 9")

    def test_numbered_start(self):
        self.assertEqual(numbered(["a"], start=5), ["5. a"])
