import unittest

from textcols.box import box
from textcols.pad import center, right


class TestCenter(unittest.TestCase):
    def test_odd_gap_extra_on_right(self):
        self.assertEqual(center("ok", 5), " ok  ")
        self.assertEqual(center("abc", 6, "*"), "*abc**")

    def test_always_full_width(self):
        for width in range(3, 12):
            self.assertEqual(len(center("hey", width)), width)

    def test_even_gap(self):
        self.assertEqual(center("ok", 6, "*"), "**ok**")


class TestUnchanged(unittest.TestCase):
    def test_too_long_kept(self):
        self.assertEqual(center("toolong", 3), "toolong")

    def test_right_and_box(self):
        self.assertEqual(right("7", 3, "0"), "007")
        self.assertEqual(box(["a"], padding=0), ["+-+", "|a|", "+-+"])
