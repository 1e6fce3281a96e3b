import json
import unittest

from wordfreq.ngrams import count_ngrams, ngrams, sentences
from wordfreq.output import render


class TestNgrams(unittest.TestCase):
    def test_ngrams(self):
        self.assertEqual(ngrams(["a", "b", "c"], 2), [("a", "b"), ("b", "c")])
        self.assertEqual(ngrams(["a"], 2), [])

    def test_sentences(self):
        self.assertEqual(sentences("One two. Three!"), [["one", "two"], ["three"]])

    def test_count_does_not_cross_sentences(self):
        counts = count_ngrams("New York is big. York is old. New York again")
        self.assertEqual(counts["new york"], 2)
        self.assertEqual(counts["york is"], 2)
        self.assertNotIn("big york", counts)


class TestOutput(unittest.TestCase):
    rows = [("cat", 12), ("elephant", 3)]

    def test_text(self):
        self.assertEqual(render(self.rows), "cat       12\nelephant   3\n")

    def test_csv_and_json(self):
        self.assertEqual(render(self.rows, "csv"), "word,count\ncat,12\nelephant,3\n")
        self.assertEqual(json.loads(render(self.rows, "json"))[1], {"word": "elephant", "count": 3})

    def test_unknown(self):
        with self.assertRaisesRegex(ValueError, "choose one of text, csv, json"):
            render(self.rows, "xml")
