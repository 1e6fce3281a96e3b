import io
import os
import tempfile
import unittest

from wordfreq.cli import build_parser, main

TEXT = "The cat saw the dog. A dog is a good dog, the cat is not."


class _WithFile(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self._tmp.name, "t.txt")
        with open(self.path, "w") as f:
            f.write(TEXT)

    def tearDown(self):
        self._tmp.cleanup()

    def run_cli(self, *args):
        out = io.StringIO()
        code = main([self.path, *args], out=out)
        return code, out.getvalue()


class TestMinLength(_WithFile):
    def test_min_length_option(self):
        code, out = self.run_cli("--min-length", "4", "--top", "3")
        self.assertEqual(code, 0)
        self.assertEqual(out, "1\tgood\n")

    def test_min_length_with_ignore_case(self):
        code, out = self.run_cli("--min-length", "3", "--ignore-case", "--top", "2")
        self.assertEqual(code, 0)
        self.assertEqual(out, "3\tdog\n3\tthe\n")

    def test_parser_gives_int(self):
        args = build_parser().parse_args(["x.txt", "--min-length", "3"])
        self.assertEqual(args.min_length, 3)


class TestUnchanged(_WithFile):
    def test_default(self):
        code, out = self.run_cli("--top", "2")
        self.assertEqual(code, 0)
        self.assertEqual(out, "3\tdog\n2\tcat\n")

    def test_missing_file(self):
        self.assertEqual(main([self.path + ".nope"], out=io.StringIO()), 2)


if __name__ == "__main__":
    unittest.main()
