import unittest

from sizefmt.humanize import human
from sizefmt.parse import parse_size
from sizefmt.units import to_kib, to_mib


class TestMib(unittest.TestCase):
    def test_whole_mebibytes(self):
        self.assertEqual(to_mib(1048576), 1.0)
        self.assertEqual(to_mib(3 * 1024 * 1024), 3.0)

    def test_fractions(self):
        self.assertEqual(to_mib(524288), 0.5)
        self.assertEqual(to_mib(0), 0.0)

    def test_agrees_with_parse(self):
        self.assertAlmostEqual(to_mib(parse_size("1.5M")), 1.5)


class TestUnchanged(unittest.TestCase):
    def test_to_kib(self):
        self.assertEqual(to_kib(2048), 2.0)

    def test_human(self):
        self.assertEqual(human(3 * 1024 * 1024), "3.0 MiB")
        self.assertEqual(human(1023), "1023 B")
