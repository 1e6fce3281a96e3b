import unittest

from textkit.case import camel_case, kebab_case, snake_case, split_words, title_case
from textkit.truncate import excerpt, first_sentence, truncate


class TestCase(unittest.TestCase):
    def test_split_words(self):
        self.assertEqual(split_words("parseHTTPResponse_code"), ["parse", "HTTP", "Response", "code"])

    def test_conversions(self):
        self.assertEqual(snake_case("Page Title"), "page_title")
        self.assertEqual(snake_case("pageTitle"), "page_title")
        self.assertEqual(kebab_case("Page Title"), "page-title")
        self.assertEqual(camel_case("page title"), "pageTitle")
        self.assertEqual(camel_case(""), "")

    def test_title_case(self):
        self.assertEqual(title_case("the art of war"), "The Art of War")
        self.assertEqual(title_case("learning HTML in a week"), "Learning HTML in a Week")
        self.assertEqual(title_case("what to look for"), "What to Look For")


class TestTruncate(unittest.TestCase):
    def test_fits(self):
        self.assertEqual(truncate("short  text", 20), "short text")

    def test_word_boundary(self):
        self.assertEqual(truncate("the quick brown fox jumps", 16), "the quick brown…")

    def test_long_word(self):
        self.assertEqual(truncate("supercalifragilistic", 8), "superca…")

    def test_limit_too_small(self):
        with self.assertRaises(ValueError):
            truncate("abc", 1)

    def test_first_sentence_and_excerpt(self):
        self.assertEqual(first_sentence("Hi there. More text."), "Hi there.")
        self.assertEqual(first_sentence("v1.2 is out"), "v1.2 is out")
        self.assertEqual(excerpt("One. Two.", 160), "One.")
