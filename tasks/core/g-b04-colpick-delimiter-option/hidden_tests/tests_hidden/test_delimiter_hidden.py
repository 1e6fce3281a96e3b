import io
import os
import tempfile
import unittest
from contextlib import redirect_stderr

from colpick.cli import main


class _Files(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, text):
        path = os.path.join(self._tmp.name, "in.csv")
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stderr(err):
            code = main(list(argv), out)
        return code, out.getvalue(), err.getvalue()


class TestDelimiter(_Files):
    def test_semicolon_input_and_output(self):
        path = self.write("konto;betrag;text\n4711;12,50;Miete\n4712;3,20;Porto\n")
        code, out, _ = self.run_cli(path, "--columns", "text,betrag", "--delimiter", ";")
        self.assertEqual(code, 0)
        self.assertEqual(out, "text;betrag\nMiete;12,50\nPorto;3,20\n")

    def test_tab_no_header(self):
        path = self.write("a\tb\n1\t2\n")
        code, out, _ = self.run_cli(path, "--columns", "b", "--delimiter", "\t", "--no-header")
        self.assertEqual((code, out), (0, "2\n"))


class TestUnchanged(_Files):
    def test_unknown_column(self):
        path = self.write("a,b\n1,2\n")
        code, _, err = self.run_cli(path, "--columns", "z")
        self.assertEqual(code, 2)
        self.assertIn("no column 'z'", err)

    def test_default_comma(self):
        path = self.write("a,b\n1,2\n")
        self.assertEqual(self.run_cli(path, "--columns", "b,a")[1], "b,a\n2,1\n")


if __name__ == "__main__":
    unittest.main()
