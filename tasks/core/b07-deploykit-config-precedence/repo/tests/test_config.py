import io
import os
import tempfile
import unittest

from deploykit.cli import build_parser, main
from deploykit.config import load_settings


class TestConfig(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.ini = os.path.join(self._tmp.name, "d.ini")
        with open(self.ini, "w") as f:
            f.write("[deploykit]\nhost = files.example\nport = 2200\n")

    def tearDown(self):
        self._tmp.cleanup()

    def settings(self, *argv, env=None):
        args = build_parser().parse_args(["app", "--config", self.ini, *argv])
        return load_settings(args, env or {})

    def test_file_over_defaults(self):
        s = self.settings()
        self.assertEqual((s["host"], s["port"], s["user"]), ("files.example", 2200, "deploy"))

    def test_flag_over_file(self):
        self.assertEqual(self.settings("--port", "2022")["port"], 2022)

    def test_missing_config_is_error(self):
        out = io.StringIO()
        self.assertEqual(main(["app", "--config", self.ini + ".nope"], {}, out), 2)

    def test_plan(self):
        out = io.StringIO()
        main(["app", "--config", self.ini, "--dry-run"], {}, out)
        self.assertTrue(out.getvalue().startswith("[dry run] connect deploy@files.example:2200"))


if __name__ == "__main__":
    unittest.main()
