import tempfile
import unittest
from collections import Counter
from pathlib import Path

from wordfreq.stopwords import ENGLISH, StopwordFileError, load_stopwords, remove_stopwords


class TestStopwords(unittest.TestCase):
    def test_remove(self):
        counts = Counter({"The": 3, "cat": 2, "and": 1})
        self.assertEqual(remove_stopwords(counts), Counter({"cat": 2}))
        self.assertIn("the", ENGLISH)

    def test_load_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "stop.txt"
            path.write_text("# project words\nFoo\n\nbar  # trailing comment\n", encoding="utf-8")
            self.assertEqual(load_stopwords(path), frozenset({"foo", "bar"}))
            path.write_text("two words\n", encoding="utf-8")
            with self.assertRaisesRegex(StopwordFileError, "stop.txt:1"):
                load_stopwords(path)

    def test_missing_file(self):
        with self.assertRaisesRegex(StopwordFileError, "no such stopword file"):
            load_stopwords(Path("/nonexistent/stop.txt"))
