import unittest

from textcols.wrap import shorten, wrap


class TestWrap(unittest.TestCase):
    def test_breaks_between_words(self):
        self.assertEqual(wrap("the quick brown fox", 10), ["the quick", "brown fox"])

    def test_long_word_kept_whole(self):
        self.assertEqual(wrap("a extraordinarily b", 5), ["a", "extraordinarily", "b"])

    def test_whitespace_runs(self):
        self.assertEqual(wrap("  one \n two  ", 20), ["one two"])
        self.assertEqual(wrap("", 5), [])

    def test_bad_width(self):
        with self.assertRaises(ValueError):
            wrap("x", 0)


class TestShorten(unittest.TestCase):
    def test_fits(self):
        self.assertEqual(shorten("short", 10), "short")

    def test_cut_at_word(self):
        self.assertEqual(shorten("a rather long title", 12), "a rather...")

    def test_tiny_width(self):
        self.assertEqual(shorten("abcdef", 2), "..")
