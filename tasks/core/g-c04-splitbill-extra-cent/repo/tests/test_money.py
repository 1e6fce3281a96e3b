import unittest

from splitbill.money import format_cents, parse_amount
from splitbill.tip import add_tip, round_up_total, tip_cents


class TestParse(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(parse_amount("12"), 1200)
        self.assertEqual(parse_amount("12.5"), 1250)
        self.assertEqual(parse_amount(" 1,234.05 "), 123405)
        self.assertEqual(parse_amount("-3.05"), -305)

    def test_errors(self):
        for bad in ("", "abc", "1.234", "1.x"):
            with self.assertRaises(ValueError):
                parse_amount(bad)


class TestFormat(unittest.TestCase):
    def test_format(self):
        self.assertEqual(format_cents(123450), "$1,234.50")
        self.assertEqual(format_cents(-305), "-$3.05")
        self.assertEqual(format_cents(7, symbol="EUR "), "EUR 0.07")


class TestTip(unittest.TestCase):
    def test_half_up(self):
        self.assertEqual(tip_cents(8420, 15), 1263)
        self.assertEqual(tip_cents(10, 15), 2)
        self.assertEqual(add_tip(8420, 15), 9683)

    def test_round_up(self):
        self.assertEqual(round_up_total(9683), 9700)
        self.assertEqual(round_up_total(9700), 9700)
        with self.assertRaises(ValueError):
            round_up_total(1, 0)
