import contextlib
import io
import tempfile
import unittest
from pathlib import Path

from wordfreq.cli import main
from wordfreq.core import count_words


def run_cli(text, *args):
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "t.txt"
        f.write_text(text, encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main([str(f), *args])
    return code, out.getvalue().splitlines()


class TestCli(unittest.TestCase):
    def test_ignore_case_flag(self):
        code, lines = run_cli("The cat saw the dog\n", "--ignore-case", "--top", "1")
        self.assertEqual(code, 0)
        self.assertEqual(lines, ["the 2"])

    def test_default_is_case_sensitive(self):
        _, lines = run_cli("The cat saw the dog\n", "--top", "2")
        self.assertEqual(lines, ["The 1", "cat 1"])

    def test_top(self):
        _, lines = run_cli("b a b c b a\n", "--top", "2", "--min-length", "1")
        self.assertEqual(lines, ["b 3", "a 2"])


class TestCore(unittest.TestCase):
    def test_count_words_ignore_case(self):
        self.assertEqual(count_words("A a", ignore_case=True)["a"], 2)
