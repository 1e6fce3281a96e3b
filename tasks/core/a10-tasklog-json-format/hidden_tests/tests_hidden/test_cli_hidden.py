import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path

from tasklog.cli import main

CONTENT = "[x] 1 buy milk #home\n[ ] 2 write report #work\n[ ] 3 water plants #home\n"


def run(*args):
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "tasks.txt"
        f.write_text(CONTENT, encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["--file", str(f), *args])
    return code, out.getvalue()


class TestJson(unittest.TestCase):
    def test_json_all(self):
        code, out = run("list", "--format", "json")
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out), [
            {"id": 1, "title": "buy milk", "done": True, "tags": ["home"]},
            {"id": 2, "title": "write report", "done": False, "tags": ["work"]},
            {"id": 3, "title": "water plants", "done": False, "tags": ["home"]},
        ])
        self.assertEqual(len(out.strip().splitlines()), 1)

    def test_json_respects_filters(self):
        _, out = run("list", "--format", "json", "--pending", "--tag", "home")
        self.assertEqual(json.loads(out), [
            {"id": 3, "title": "water plants", "done": False, "tags": ["home"]}])

    def test_unknown_format_rejected(self):
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as cm:
            run("list", "--format", "yaml")
        self.assertEqual(cm.exception.code, 2)
        code, _ = run("list", "--format", "text")
        self.assertEqual(code, 0)


class TestText(unittest.TestCase):
    def test_default_text(self):
        _, out = run("list", "--done")
        self.assertEqual(out.strip(), "1  done  buy milk  home")

    def test_pending_text(self):
        _, out = run("list", "--pending")
        self.assertEqual(out.splitlines(), ["  2        write report  work", "  3        water plants  home"])
