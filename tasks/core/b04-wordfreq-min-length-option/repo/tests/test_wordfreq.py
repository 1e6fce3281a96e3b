import io
import os
import tempfile
import unittest

from wordfreq import count_words, top_words
from wordfreq.cli import main


class TestCounting(unittest.TestCase):
    def test_min_length(self):
        counts = count_words("a bb ccc bb", min_length=2)
        self.assertEqual(counts, {"bb": 2, "ccc": 1})

    def test_top_ties_alphabetical(self):
        self.assertEqual(top_words({"b": 2, "a": 2, "c": 1}, 2), [("a", 2), ("b", 2)])


class TestCli(unittest.TestCase):
    def test_default_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.txt")
            with open(path, "w") as f:
                f.write("the cat and the hat")
            out = io.StringIO()
            self.assertEqual(main([path, "--top", "1"], out=out), 0)
            self.assertEqual(out.getvalue(), "2\tthe\n")


if __name__ == "__main__":
    unittest.main()
