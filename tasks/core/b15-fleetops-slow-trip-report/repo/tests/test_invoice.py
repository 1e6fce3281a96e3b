import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.invoice import Invoice, parse_row, to_row
from fleetops.reports import invoice_report as report
from fleetops.services import invoice_service as svc
from fleetops.store.invoice_store import InvoiceStore


def make(n):
    data = {}
    data[1] = {"id": "INV-0001", "customer_id": 'CUS-0001', "day": '2024-01-11', "amount": 10.75, "paid": True}
    data[2] = {"id": "INV-0002", "customer_id": 'CUS-0002', "day": '2024-02-12', "amount": 21.25, "paid": True}
    data[3] = {"id": "INV-0003", "customer_id": 'CUS-0003', "day": '2024-03-13', "amount": 31.75, "paid": True}
    data[4] = {"id": "INV-0004", "customer_id": 'CUS-0001', "day": '2024-04-14', "amount": 42.25, "paid": False}
    return Invoice.from_dict(data[n])


class TestInvoice(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = InvoiceStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = InvoiceStore([make(1), make(2)])
        svc.update_invoice(store, "INV-0002", customer_id='CUS-0003')
        self.assertEqual(store.get("INV-0002").customer_id, 'CUS-0003')

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(customer_id='CUS-0002')
        self.assertEqual(a.diff(b), {"customer_id": ('CUS-0001', 'CUS-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = InvoiceStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "INV-0001")
        self.assertEqual(store.page(1, 5)[0].id, "INV-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = InvoiceStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_amount_stats(self):
        stats = svc.amount_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.amount_stats([]))

    def test_group_by_customer(self):
        groups = svc.group_by_customer([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_customers(groups[k][0] for k in groups))

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = InvoiceStore([make(1), make(2)])
        text = report.invoice_summary(store).render()
        self.assertIn("invoices", text)
        self.assertEqual(len(report.invoice_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
