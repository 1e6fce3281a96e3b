import io
import os
import tempfile
import unittest
from contextlib import redirect_stderr

from deploykit.cli import build_parser, main
from deploykit.config import load_settings


class _Base(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.ini = os.path.join(self._tmp.name, "d.ini")
        with open(self.ini, "w") as f:
            f.write("[deploykit]\nhost = files.example\nport = 2200\ntimeout = 45\n")

    def tearDown(self):
        self._tmp.cleanup()

    def settings(self, *argv, env=None):
        args = build_parser().parse_args(["app", "--config", self.ini, *argv])
        return load_settings(args, env or {})


class TestPrecedence(_Base):
    def test_flag_beats_env(self):
        s = self.settings("--host", "web1", env={"DEPLOYKIT_HOST": "env-host"})
        self.assertEqual(s["host"], "web1")

    def test_env_fills_what_flags_leave(self):
        s = self.settings("--host", "web1", env={"DEPLOYKIT_PORT": "2222"})
        self.assertEqual((s["host"], s["port"]), ("web1", 2222))


class TestEnvTypes(_Base):
    def test_env_int_converted(self):
        s = self.settings(env={"DEPLOYKIT_TIMEOUT": "90"})
        self.assertEqual(s["timeout"], 90)
        self.assertIsInstance(s["timeout"], int)

    def test_env_bool_converted(self):
        self.assertIs(self.settings(env={"DEPLOYKIT_DRY_RUN": "Yes"})["dry_run"], True)
        self.assertIs(self.settings(env={"DEPLOYKIT_DRY_RUN": "0"})["dry_run"], False)

    def test_bad_env_value_is_error(self):
        err = io.StringIO()
        with redirect_stderr(err):
            code = main(["app", "--config", self.ini], {"DEPLOYKIT_PORT": "ssh"}, io.StringIO())
        self.assertEqual(code, 2)
        self.assertIn("DEPLOYKIT_PORT: expected an integer, got 'ssh'", err.getvalue())


class TestUnchanged(_Base):
    def test_file_over_defaults(self):
        s = self.settings()
        self.assertEqual((s["host"], s["port"], s["timeout"], s["dry_run"]),
                         ("files.example", 2200, 45, False))

    def test_env_over_file(self):
        self.assertEqual(self.settings(env={"DEPLOYKIT_USER": "ops"})["user"], "ops")

    def test_flag_over_file(self):
        self.assertEqual(self.settings("--timeout", "5")["timeout"], 5)


if __name__ == "__main__":
    unittest.main()
