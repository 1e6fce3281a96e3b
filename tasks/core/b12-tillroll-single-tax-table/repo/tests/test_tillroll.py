import unittest

from tillroll.cart import Cart
from tillroll.receipt import render_receipt, vat_breakdown
from tillroll.refunds import refund_line


def cart():
    c = Cart()
    c.add("CAP", 2)
    c.add("CRO", 3)
    c.add("NEWS")
    return c


class TestCart(unittest.TestCase):
    def test_totals(self):
        c = cart()
        self.assertEqual(c.net_cents(), 600 + 555 + 250)
        self.assertEqual(c.vat_cents(), 120 + 28)
        self.assertEqual(c.total_cents(), 1553)

    def test_receipt(self):
        text = render_receipt(cart())
        self.assertIn("VAT reduced 5% on 5.55: 0.28", text)
        self.assertTrue(text.endswith("15.53"))

    def test_breakdown_matches_cart(self):
        c = cart()
        self.assertEqual(sum(v[2] for v in vat_breakdown(c).values()), c.vat_cents())

    def test_refund(self):
        line = cart().lines[1]
        self.assertEqual(refund_line(line, 1), 185 + 9)


if __name__ == "__main__":
    unittest.main()
