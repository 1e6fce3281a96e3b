import unittest

from colpick.sniff import describe, guess_delimiter
from colpick.spec import parse_spec, rename_header, sources


class TestSniff(unittest.TestCase):
    def test_guess(self):
        self.assertEqual(guess_delimiter("name,age,city\n"), ",")
        self.assertEqual(guess_delimiter("name;age;city"), ";")
        self.assertEqual(guess_delimiter("name\tage"), "\t")
        self.assertEqual(guess_delimiter("a,b;c;d"), ";")
        self.assertEqual(guess_delimiter("single"), ",")

    def test_describe(self):
        self.assertEqual(describe("\t"), "tab")
        self.assertEqual(describe(":"), "':'")


class TestSpec(unittest.TestCase):
    def test_parse(self):
        spec = parse_spec("name, city:Town,")
        self.assertEqual(spec, [("name", "name"), ("city", "Town")])
        self.assertEqual(sources(spec), ["name", "city"])
        self.assertEqual(rename_header(["name", "city"], spec), ["name", "Town"])

    def test_errors(self):
        with self.assertRaises(ValueError):
            parse_spec(" , ")
        with self.assertRaises(ValueError):
            parse_spec(":Town")
