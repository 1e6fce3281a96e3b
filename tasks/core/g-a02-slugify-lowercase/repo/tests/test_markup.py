import unittest

from textkit.markup import escape, reading_time, strip_tags, unescape


class TestMarkup(unittest.TestCase):
    def test_escape_round_trip(self):
        raw = "<a href=\"x\">Tom & Jerry's</a>"
        self.assertEqual(escape("a < b & c"), "a &lt; b &amp; c")
        self.assertEqual(unescape(escape(raw)), raw)

    def test_strip_tags(self):
        self.assertEqual(strip_tags("<p>Hello <b>world</b></p>"), "Hello world")
        self.assertEqual(strip_tags("fish &amp; chips"), "fish & chips")

    def test_reading_time(self):
        self.assertEqual(reading_time("word " * 450), 3)
        self.assertEqual(reading_time(""), 1)
        with self.assertRaises(ValueError):
            reading_time("x", 0)
