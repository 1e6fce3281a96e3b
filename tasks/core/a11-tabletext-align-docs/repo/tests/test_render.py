import unittest

from tabletext import render


class TestRender(unittest.TestCase):
    def test_text_columns(self):
        self.assertEqual(render([{"a": "x", "b": "yy"}]), "a | b\n--+---\nx | yy")

    def test_empty(self):
        self.assertEqual(render([]), "")
