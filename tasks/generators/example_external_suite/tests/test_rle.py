import unittest

from rle import decode, encode


class TestRle(unittest.TestCase):
    def test_encode(self):
        self.assertEqual(encode("aaab"), [("a", 3), ("b", 1)])
        self.assertEqual(encode(""), [])

    def test_round_trip(self):
        for text in ("aaab", "abc", "zzzzzz", ""):
            self.assertEqual(decode(encode(text)), text)

    def test_decode(self):
        self.assertEqual(decode([("x", 2), ("y", 3)]), "xxyyy")
