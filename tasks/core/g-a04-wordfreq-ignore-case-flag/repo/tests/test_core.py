import unittest
from collections import Counter

from wordfreq.core import count_words, top


class TestCore(unittest.TestCase):
    def test_count(self):
        self.assertEqual(count_words("a b a"), Counter({"a": 2, "b": 1}))

    def test_top_ties_alphabetical(self):
        self.assertEqual(top(Counter({"b": 1, "a": 1, "c": 2}), 2), [("c", 2), ("a", 1)])
