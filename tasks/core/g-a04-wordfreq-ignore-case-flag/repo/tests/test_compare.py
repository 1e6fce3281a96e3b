import unittest
from collections import Counter

from wordfreq.compare import distinctive, relative, shared


class TestCompare(unittest.TestCase):
    def test_relative(self):
        self.assertEqual(relative(Counter({"a": 3, "b": 1})), {"a": 0.75, "b": 0.25})
        self.assertEqual(relative(Counter()), {})

    def test_distinctive(self):
        a = Counter({"cat": 4, "dog": 1, "fish": 1})
        b = Counter({"cat": 1, "dog": 5})
        self.assertEqual(distinctive(a, b), ["fish", "cat"])

    def test_shared(self):
        self.assertEqual(shared(Counter("abc"), Counter("cbx")), ["b", "c"])
