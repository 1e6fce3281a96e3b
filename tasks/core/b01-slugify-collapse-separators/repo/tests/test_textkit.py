import unittest

from textkit import camel_case, slugify, snake_case, wrap


class TestSlugify(unittest.TestCase):
    def test_simple_title(self):
        self.assertEqual(slugify("Release Notes"), "release-notes")

    def test_accents(self):
        self.assertEqual(slugify("Crème brûlée"), "creme-brulee")

    def test_custom_separator(self):
        self.assertEqual(slugify("Release Notes", sep="_"), "release_notes")


class TestWrap(unittest.TestCase):
    def test_wrap(self):
        self.assertEqual(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"])


class TestCase(unittest.TestCase):
    def test_snake(self):
        self.assertEqual(snake_case("HTTPServerError"), "http_server_error")

    def test_camel(self):
        self.assertEqual(camel_case("http_server_error"), "httpServerError")


if __name__ == "__main__":
    unittest.main()
