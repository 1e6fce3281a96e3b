import contextlib
import io
import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from depot.cli import main
from depot.settings import load_settings

ROWS = [{"amount": 1000}, {"amount": 2550}]


class Tmp:
    def __enter__(self):
        self._dir = tempfile.TemporaryDirectory()
        self.path = Path(self._dir.name)
        (self.path / "export.json").write_text(json.dumps(ROWS), encoding="utf-8")
        return self

    def __exit__(self, *exc):
        self._dir.cleanup()

    def ini(self, text):
        f = self.path / "depot.ini"
        f.write_text(text, encoding="utf-8")
        return str(f)


def run(args, env=None):
    out, err = io.StringIO(), io.StringIO()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DEPOT")}
    clean.update(env or {})
    with mock.patch.dict(os.environ, clean, clear=True), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


class TestEnvironment(unittest.TestCase):
    def test_env_currency_used_by_totals(self):
        with Tmp() as t:
            code, out, _ = run(["totals", str(t.path / "export.json")],
                               {"DEPOT_CURRENCY_SYMBOL": "CHF "})
        self.assertEqual((code, out), (0, "2 record(s), total CHF 35.50\n"))

    def test_env_page_size(self):
        self.assertEqual(load_settings(None, {"DEPOT_PAGE_SIZE": "20"}).page_size, 20)


class TestFile(unittest.TestCase):
    def test_file_currency_used_by_totals(self):
        with Tmp() as t:
            ini = t.ini("[depot]\ncurrency_symbol = $\n")
            code, out, _ = run(["--settings", ini, "totals", str(t.path / "export.json")])
        self.assertEqual(out, "2 record(s), total $35.50\n")

    def test_settings_command_lists_file_value(self):
        with Tmp() as t:
            ini = t.ini("[depot]\npage_size = 25\n")
            code, out, _ = run(["--settings", ini, "settings"])
        self.assertIn("page_size = 25\n", out)

    def test_bad_page_size_is_an_error(self):
        with Tmp() as t:
            ini = t.ini("[depot]\npage_size = lots\n")
            code, _, err = run(["--settings", ini, "settings"])
        self.assertEqual(code, 2)
        self.assertIn("page_size", err)


class TestFlag(unittest.TestCase):
    def test_currency_flag_wins(self):
        with Tmp() as t:
            ini = t.ini("[depot]\ncurrency_symbol = $\n")
            code, out, _ = run(["--settings", ini, "totals", "--currency", "£",
                                str(t.path / "export.json")], {"DEPOT_CURRENCY_SYMBOL": "CHF "})
        self.assertEqual(out, "2 record(s), total £35.50\n")


class TestDefaults(unittest.TestCase):
    def test_default_euro(self):
        with Tmp() as t:
            _, out, _ = run(["totals", str(t.path / "export.json")])
        self.assertEqual(out, "2 record(s), total €35.50\n")
