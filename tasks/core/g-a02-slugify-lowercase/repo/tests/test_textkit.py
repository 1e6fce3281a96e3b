import unittest

from textkit.counts import word_counts
from textkit.slug import slugify
from textkit.wrap import wrap


class TestTextkit(unittest.TestCase):
    def test_slug_punctuation(self):
        self.assertEqual(slugify("a  --  b"), "a-b")

    def test_wrap(self):
        self.assertEqual(wrap("one two three four", 9), ["one two", "three", "four"])

    def test_counts(self):
        self.assertEqual(word_counts("the cat and THE dog")["the"], 2)
