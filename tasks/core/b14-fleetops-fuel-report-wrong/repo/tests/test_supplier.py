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


if __name__ == "__main__":
    unittest.main()
