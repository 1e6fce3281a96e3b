import unittest
from datetime import date

from depot.billing.invoicing import OrderLine, build_invoice
from depot.billing.pricing import price_line, volume_percent
from depot.core.errors import ValidationError
from depot.core.events import EventBus
from depot.models.product import Product
from depot.models.stock_count import StockCount
from depot.repositories.invoice_repo import InvoiceRepository
from depot.services.invoice_service import InvoiceService
from depot.stock.allocation import allocate


def product(price, category="food", sku="FLOUR-25", discontinued=False):
    return Product(id="PRD-000007", name="Flour 25kg", sku=sku, unit_price=price,
                   weight_g=25000, category=category, discontinued=discontinued)


class TestIssue(unittest.TestCase):
    def test_flour_example(self):
        draft = build_invoice("CUS-000042", [OrderLine(product(240), 100)], list_discount_pct=10)
        self.assertEqual((draft.subtotal, draft.vat, draft.total), (19440, 1750, 21190))
        self.assertEqual(draft.summary(), "1 line(s), net €194.40, VAT €17.50, total €211.90")


class TestPricing(unittest.TestCase):
    def test_volume_tier_boundaries(self):
        self.assertEqual([volume_percent(q) for q in (49, 50, 51, 99, 100, 101)],
                         [0, 5, 5, 5, 10, 10])

    def test_rounding_half_up(self):
        line = price_line(333, 3, list_discount_pct=5)
        self.assertEqual((line.gross, line.volume_discount, line.list_discount), (999, 0, 50))


class TestInvoice(unittest.TestCase):
    def test_vat_charged_on_discounted_amount(self):
        draft = build_invoice("CUS-000001", [OrderLine(product(1000, "drink", "COLA-6"), 60)])
        # 60000 gross, 5% volume -> 57000 net, 21% VAT -> 11970
        self.assertEqual((draft.subtotal, draft.vat), (57000, 11970))

    def test_small_order_unchanged(self):
        draft = build_invoice("CUS-000001", [OrderLine(product(240), 10)])
        self.assertEqual((draft.subtotal, draft.vat, draft.total), (2400, 216, 2616))

    def test_discontinued_rejected(self):
        with self.assertRaises(ValidationError):
            build_invoice("CUS-000001", [OrderLine(product(240, discontinued=True), 1)])


class TestUnrelated(unittest.TestCase):
    def test_invoice_service_totals(self):
        service = InvoiceService(InvoiceRepository(), EventBus())
        for total in (1000, 2550):
            service.create(number=f"2024-{total:05d}", customer_id="CUS-000001",
                           issued_on=date(2024, 3, 1), total=total, state="sent")
        self.assertEqual(service.formatted_total(), "€35.50")

    def test_stock_allocation(self):
        counts = [StockCount(id="CNT-000001", product_id="P", bin_id="B1",
                             counted_on=date(2024, 1, 1), quantity=3)]
        self.assertEqual(allocate(counts, "P", 2), [("B1", 2)])
