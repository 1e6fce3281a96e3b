import unittest

from PKG.billing.invoicing import OrderLine, build_invoice
from PKG.billing.pricing import price_line, volume_percent
from PKG.billing.tax import vat_for
from PKG.models.product import Product


def product(price, category="household"):
    return Product(id="PRD-000001", name="Soap", sku="SOAP-1", unit_price=price,
                   weight_g=500, category=category, discontinued=False)


class TestBilling(unittest.TestCase):
    def test_small_line_has_no_discount(self):
        line = price_line(250, 4)
        self.assertEqual((line.gross, line.net), (1000, 1000))

    def test_volume_tiers(self):
        self.assertEqual(volume_percent(10), 0)
        self.assertEqual(volume_percent(60), 5)

    def test_vat(self):
        self.assertEqual(vat_for("food", 1000), 90)

    def test_invoice_small_order(self):
        draft = build_invoice("CUS-000001", [OrderLine(product(250), 4)])
        self.assertEqual((draft.subtotal, draft.vat, draft.total), (1000, 210, 1210))
