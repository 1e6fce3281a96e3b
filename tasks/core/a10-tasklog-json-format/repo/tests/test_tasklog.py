import contextlib
import io
import tempfile
import unittest
from pathlib import Path

from tasklog.cli import main
from tasklog.store import parse_line


class TestTasklog(unittest.TestCase):
    def test_parse_line(self):
        t = parse_line("[x] 7 call mum #home #phone")
        self.assertEqual((t.id, t.title, t.done, t.tags), (7, "call mum", True, ["home", "phone"]))

    def test_add_and_list(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = str(Path(tmp) / "t.txt")
            self.assertEqual(main(["--file", f, "add", "buy milk", "--tag", "home"]), 0)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                main(["--file", f, "list"])
            self.assertIn("buy milk", out.getvalue())
