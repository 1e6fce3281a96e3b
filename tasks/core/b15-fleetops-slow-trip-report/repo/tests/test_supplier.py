import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.supplier import Supplier, parse_row, to_row
from fleetops.reports import supplier_report as report
from fleetops.services import supplier_service as svc
from fleetops.store.supplier_store import SupplierStore


def make(n):
    data = {}
    data[1] = {"id": "SUP-0001", "name": 'Name 1', "country": 'Country 1', "lead_days": 4}
    data[2] = {"id": "SUP-0002", "name": 'Name 2', "country": 'Country 2', "lead_days": 7}
    data[3] = {"id": "SUP-0003", "name": 'Name 3', "country": 'Country 3', "lead_days": 10}
    data[4] = {"id": "SUP-0004", "name": 'Name 4', "country": 'Country 4', "lead_days": 13}
    return Supplier.from_dict(data[n])


class TestSupplier(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = SupplierStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = SupplierStore([make(1), make(2)])
        svc.update_supplier(store, "SUP-0002", name='Name 3')
        self.assertEqual(store.get("SUP-0002").name, 'Name 3')

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(name='Name 2')
        self.assertEqual(a.diff(b), {"name": ('Name 1', 'Name 2')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = SupplierStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "SUP-0001")
        self.assertEqual(store.page(1, 5)[0].id, "SUP-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = SupplierStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_lead_days_stats(self):
        stats = svc.lead_days_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (4, 10))
        self.assertIsNone(svc.lead_days_stats([]))

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = SupplierStore([make(1), make(2)])
        text = report.supplier_summary(store).render()
        self.assertIn("suppliers", text)
        self.assertEqual(len(report.supplier_detail(store.all(), limit=1).rows), 1)

    def test_problems_lists_every_field(self):
        record = make(1)
        record.id = "X-1"
        record.name = ''
        self.assertEqual(len(record.problems()), 2)
        self.assertFalse(record.is_valid())
        self.assertTrue(make(2).is_valid())

    def test_json_round_trip(self):
        record = make(3)
        self.assertEqual(Supplier.from_json(record.to_json()), record)
        with self.assertRaises(ValidationError):
            Supplier.from_json("[1, 2]")
        with self.assertRaises(ValidationError):
            Supplier.from_json("{not json")

    def test_json_lines_import(self):
        text = svc.export_json_lines([make(1), make(2)])
        store = SupplierStore([make(1)])
        problems = svc.import_json_lines(store, text + "\n{}\n")
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)
        self.assertTrue(problems[0].startswith("line 4: "))

    def test_matches_and_label(self):
        record = make(1)
        self.assertTrue(record.matches(id="SUP-0001"))
        self.assertFalse(record.matches(id="SUP-0002"))
        with self.assertRaises(AttributeError):
            record.matches(nope=1)
        self.assertTrue(record.label().startswith("SUP-0001 ("))

    def test_store_index_and_counts(self):
        store = SupplierStore([make(1), make(2), make(3), make(4)])
        index = store.index_by("name")
        self.assertEqual(sum(len(v) for v in index.values()), 4)
        self.assertEqual(store.count_where(id="SUP-0003"), 1)
        self.assertEqual(store.first_where(id="SUP-0002"), make(2))
        self.assertIsNone(store.first_where(id="nope"))
        with self.assertRaises(AttributeError):
            store.index_by("nope")

    def test_store_upsert_snapshot_restore(self):
        store = SupplierStore([make(1), make(2)])
        saved = store.snapshot()
        self.assertFalse(store.upsert(make(3)))
        self.assertTrue(store.upsert(make(1)))
        self.assertEqual(len(store), 3)
        store.restore(saved)
        self.assertEqual(store.ids(), ["SUP-0001", "SUP-0002"])
        self.assertEqual([r.id for r in store.pop_where(id="SUP-0001")], ["SUP-0001"])
        self.assertEqual(len(store), 1)

    def test_add_many_keeps_good_records(self):
        bad = make(3)
        bad.id = "nope"
        store = SupplierStore([make(1)])
        problems = store.add_many([make(1), make(2), bad])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_duplicates_and_changes(self):
        twin = make(1).to_dict()
        twin["id"] = "SUP-0009"
        twin = Supplier.from_dict(twin)
        self.assertTrue(make(1).same_content(twin))
        self.assertEqual(svc.find_duplicates([make(1), make(2), twin]), [["SUP-0001", "SUP-0009"]])
        changed = make(2).copy_with(name='Name 3')
        changes = svc.changes_between([make(1), make(2)], [changed, make(3)])
        self.assertEqual(changes, {"added": ["SUP-0003"], "removed": ["SUP-0001"], "changed": ["SUP-0002"]})
        table = report.supplier_changes([make(1), make(2)], [changed, make(3)])
        self.assertEqual(len(table.rows), 3)

    def test_merge_into(self):
        store = SupplierStore([make(1)])
        counts = svc.merge_into(store, [make(1), make(2)])
        self.assertEqual(counts, {"added": 1, "replaced": 0, "skipped": 1})
        counts = svc.merge_into(store, [make(1)], overwrite=True)
        self.assertEqual(counts["replaced"], 1)

    def test_lead_days_median_buckets_outside(self):
        data = [make(1), make(2), make(3), make(4)]
        self.assertEqual(svc.median_lead_days(data), 8.5)
        self.assertEqual(svc.median_lead_days(data[:3]), 7)
        self.assertIsNone(svc.median_lead_days([]))
        buckets = svc.bucket_lead_days(data, [7, 13])
        self.assertEqual(list(buckets.values()), [1, 2, 1])
        with self.assertRaises(ValidationError):
            svc.bucket_lead_days(data, [3, 1])
        self.assertEqual(len(svc.outside_lead_days(data, 7, 10)), 2)
        stats = report.supplier_stats(data)
        self.assertEqual(len(stats.rows), 1)

    def test_problems_report(self):
        bad = make(2)
        bad.id = "nope"
        table = report.supplier_problems([make(1), bad])
        self.assertEqual([row[0] for row in table.rows], ["nope"])


if __name__ == "__main__":
    unittest.main()
