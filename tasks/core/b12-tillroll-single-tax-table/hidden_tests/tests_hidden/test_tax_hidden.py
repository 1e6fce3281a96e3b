import importlib
import unittest

from tillroll import cart as cart_mod
from tillroll import receipt, refunds
from tillroll.cart import Cart


def tax():
    return importlib.import_module("tillroll.tax")


def basket():
    c = Cart()
    c.add("ESP", 3)
    c.add("SAN", 1)
    c.add("NEWS", 2)
    return c


class TestSingleTable(unittest.TestCase):
    def test_tax_module_api(self):
        t = tax()
        self.assertEqual(t.RATES, {"standard": 0.20, "reduced": 0.05, "zero": 0.0})
        self.assertEqual(t.tax_cents(455, "reduced"), 23)  # 22.75 rounds half up
        self.assertEqual(t.tax_cents(630, "standard"), 126)
        self.assertEqual(t.tax_cents(-455, "reduced"), -23)

    def test_no_private_copies(self):
        for module in (cart_mod, receipt, refunds):
            self.assertFalse(hasattr(module, "_VAT"), f"{module.__name__} still has _VAT")
            self.assertFalse(hasattr(module, "_round_half_up"),
                             f"{module.__name__} still has _round_half_up")

    def test_one_change_reaches_everything(self):
        t = tax()
        saved = dict(t.RATES)
        t.RATES["reduced"] = 0.10
        try:
            c = basket()
            self.assertEqual(c.vat_cents(), 126 + 46)
            self.assertEqual(vat_sum(c), 126 + 46)
            self.assertIn("VAT reduced 10% on 4.55: 0.46", receipt.render_receipt(c))
            self.assertEqual(refunds.refund_line(c.lines[1]), 455 + 46)
        finally:
            t.RATES.clear()
            t.RATES.update(saved)


def vat_sum(c):
    return sum(v[2] for v in receipt.vat_breakdown(c).values())


class TestUnchanged(unittest.TestCase):
    def test_totals(self):
        c = basket()
        self.assertEqual((c.net_cents(), c.vat_cents(), c.total_cents()), (1585, 149, 1734))

    def test_receipt_and_refund(self):
        c = basket()
        text = receipt.render_receipt(c)
        self.assertIn("VAT standard 20% on 6.30: 1.26", text)
        self.assertIn("VAT zero 0% on 5.00: 0.00", text)
        self.assertTrue(text.endswith("17.34"))
        self.assertEqual(refunds.refund_line(c.lines[0], 2), 420 + 84)
        with self.assertRaises(ValueError):
            refunds.refund_line(c.lines[0], 4)


if __name__ == "__main__":
    unittest.main()
