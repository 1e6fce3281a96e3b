import unittest

from textkit import camel_case, slugify, snake_case, wrap


class TestSlugCollapse(unittest.TestCase):
    def test_punctuation_and_spaces_collapse(self):
        self.assertEqual(slugify("Hello,  World!"), "hello-world")

    def test_runs_with_custom_separator(self):
        self.assertEqual(slugify("a -- b ... c", sep="_"), "a_b_c")

    def test_max_length_after_collapse(self):
        self.assertEqual(slugify("Tips & Tricks: Part 2", max_length=12), "tips-tricks")


class TestUnchanged(unittest.TestCase):
    def test_simple_title(self):
        self.assertEqual(slugify("Release Notes"), "release-notes")

    def test_accents(self):
        self.assertEqual(slugify("Crème brûlée"), "creme-brulee")

    def test_other_helpers(self):
        self.assertEqual(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"])
        self.assertEqual(snake_case("parseURLValue"), "parse_url_value")
        self.assertEqual(camel_case("a_b"), "aB")


if __name__ == "__main__":
    unittest.main()
