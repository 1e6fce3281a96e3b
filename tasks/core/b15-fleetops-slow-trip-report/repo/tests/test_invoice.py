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

    def test_problems_lists_every_field(self):
        record = make(1)
        record.id = "X-1"
        record.customer_id = ''
        self.assertEqual(len(record.problems()), 2)
        self.assertFalse(record.is_valid())
        self.assertTrue(make(2).is_valid())

    def test_json_round_trip(self):
        record = make(3)
        self.assertEqual(Invoice.from_json(record.to_json()), record)
        with self.assertRaises(ValidationError):
            Invoice.from_json("[1, 2]")
        with self.assertRaises(ValidationError):
            Invoice.from_json("{not json")

    def test_json_lines_import(self):
        text = svc.export_json_lines([make(1), make(2)])
        store = InvoiceStore([make(1)])
        problems = svc.import_json_lines(store, text + "\n{}\n")
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)
        self.assertTrue(problems[0].startswith("line 4: "))

    def test_matches_and_label(self):
        record = make(1)
        self.assertTrue(record.matches(id="INV-0001"))
        self.assertFalse(record.matches(id="INV-0002"))
        with self.assertRaises(AttributeError):
            record.matches(nope=1)
        self.assertTrue(record.label().startswith("INV-0001 ("))

    def test_store_index_and_counts(self):
        store = InvoiceStore([make(1), make(2), make(3), make(4)])
        index = store.index_by("customer_id")
        self.assertEqual(sum(len(v) for v in index.values()), 4)
        self.assertEqual(store.count_where(id="INV-0003"), 1)
        self.assertEqual(store.first_where(id="INV-0002"), make(2))
        self.assertIsNone(store.first_where(id="nope"))
        with self.assertRaises(AttributeError):
            store.index_by("nope")

    def test_store_upsert_snapshot_restore(self):
        store = InvoiceStore([make(1), make(2)])
        saved = store.snapshot()
        self.assertFalse(store.upsert(make(3)))
        self.assertTrue(store.upsert(make(1)))
        self.assertEqual(len(store), 3)
        store.restore(saved)
        self.assertEqual(store.ids(), ["INV-0001", "INV-0002"])
        self.assertEqual([r.id for r in store.pop_where(id="INV-0001")], ["INV-0001"])
        self.assertEqual(len(store), 1)

    def test_add_many_keeps_good_records(self):
        bad = make(3)
        bad.id = "nope"
        store = InvoiceStore([make(1)])
        problems = store.add_many([make(1), make(2), bad])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_duplicates_and_changes(self):
        twin = make(1).to_dict()
        twin["id"] = "INV-0009"
        twin = Invoice.from_dict(twin)
        self.assertTrue(make(1).same_content(twin))
        self.assertEqual(svc.find_duplicates([make(1), make(2), twin]), [["INV-0001", "INV-0009"]])
        changed = make(2).copy_with(customer_id='CUS-0003')
        changes = svc.changes_between([make(1), make(2)], [changed, make(3)])
        self.assertEqual(changes, {"added": ["INV-0003"], "removed": ["INV-0001"], "changed": ["INV-0002"]})
        table = report.invoice_changes([make(1), make(2)], [changed, make(3)])
        self.assertEqual(len(table.rows), 3)

    def test_merge_into(self):
        store = InvoiceStore([make(1)])
        counts = svc.merge_into(store, [make(1), make(2)])
        self.assertEqual(counts, {"added": 1, "replaced": 0, "skipped": 1})
        counts = svc.merge_into(store, [make(1)], overwrite=True)
        self.assertEqual(counts["replaced"], 1)

    def test_check_references(self):
        known = {'CUS-0001'}
        class Known:
            def has(self, record_id):
                return record_id in known

        problems = svc.check_references([make(1), make(2)], customers=Known())
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("INV-0002: no customer "))
        self.assertEqual(svc.check_references([make(1), make(2)]), [])
        counts = svc.count_by_customer([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(counts.values()), 4)
        self.assertEqual(len(report.invoice_by_customer([make(1), make(4)]).rows), 1)

    def test_amount_median_buckets_outside(self):
        data = [make(1), make(2), make(3), make(4)]
        self.assertEqual(svc.median_amount(data), 26.5)
        self.assertEqual(svc.median_amount(data[:3]), 21.25)
        self.assertIsNone(svc.median_amount([]))
        buckets = svc.bucket_amount(data, [21.25, 42.25])
        self.assertEqual(list(buckets.values()), [1, 2, 1])
        with self.assertRaises(ValidationError):
            svc.bucket_amount(data, [3, 1])
        self.assertEqual(len(svc.outside_amount(data, 21.25, 31.75)), 2)
        stats = report.invoice_stats(data)
        self.assertEqual(len(stats.rows), 1)

    def test_dates(self):
        data = [make(3), make(1), make(2)]
        self.assertEqual(svc.first_and_last(data), ('2024-01-11', '2024-03-13'))
        self.assertIsNone(svc.first_and_last([]))
        self.assertIsNone(svc.busiest_month([]))
        self.assertEqual(svc.busiest_month(data), '2024-01')
        gaps = svc.days_since_previous(data)
        self.assertEqual(len(gaps), 2)
        self.assertTrue(all(g >= 0 for g in gaps.values()))
        monthly = svc.monthly_amount_cents(data)
        self.assertEqual(sum(monthly.values()), svc.total_amount_cents(data))

    def test_split_by_paid(self):
        yes, no = svc.split_by_paid([make(1), make(2), make(3), make(4)])
        self.assertEqual(len(yes) + len(no), 4)
        self.assertTrue(all(r.paid for r in yes))

    def test_problems_report(self):
        bad = make(2)
        bad.id = "nope"
        table = report.invoice_problems([make(1), bad])
        self.assertEqual([row[0] for row in table.rows], ["nope"])


if __name__ == "__main__":
    unittest.main()
