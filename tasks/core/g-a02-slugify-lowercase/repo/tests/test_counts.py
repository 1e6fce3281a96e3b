import unittest

from textkit.counts import top_words


class TestTopWords(unittest.TestCase):
    def test_skips_stopwords(self):
        text = "The cat and the dog. The dog barks at the cat; a dog sleeps."
        self.assertEqual(top_words(text, 2), ["dog", "cat"])

    def test_ties_alphabetical(self):
        self.assertEqual(top_words("pear apple fig", 5), ["apple", "fig", "pear"])
