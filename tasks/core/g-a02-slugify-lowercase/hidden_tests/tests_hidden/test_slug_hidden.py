import unittest

from textkit.slug import slugify
from textkit.wrap import wrap


class TestSlugify(unittest.TestCase):
    def test_lowercase(self):
        self.assertEqual(slugify("Hello World, Again!"), "hello-world-again")
        self.assertEqual(slugify("Crème Brûlée"), "creme-brulee")

    def test_same_slug_for_case_variants(self):
        self.assertEqual(slugify("Release Notes"), slugify("release notes"))

    def test_separator(self):
        self.assertEqual(slugify("a b c", separator="_"), "a_b_c")

    def test_max_length(self):
        self.assertEqual(slugify("abc def ghi", max_length=6), "abc-de")


class TestWrap(unittest.TestCase):
    def test_wrap(self):
        self.assertEqual(wrap("aa bb cc", 5), ["aa bb", "cc"])
