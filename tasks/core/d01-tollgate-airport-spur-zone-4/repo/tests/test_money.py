import unittest

from tollgate.money import fmt, parse, round_half_up


class TestMoney(unittest.TestCase):
    def test_round_half_up(self):
        self.assertEqual(round_half_up(2.5), 3)
        self.assertEqual(round_half_up(2.49), 2)

    def test_fmt_and_parse(self):
        self.assertEqual(fmt(12345), "123.45")
        self.assertEqual(fmt(-5), "-0.05")
        self.assertEqual(parse("7"), 700)
        self.assertEqual(parse("1.5"), 150)
