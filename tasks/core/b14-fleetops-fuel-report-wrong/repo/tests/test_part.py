import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.part import Part, parse_row, to_row
from fleetops.reports import part_report as report
from fleetops.services import part_service as svc
from fleetops.store.part_store import PartStore


def make(n):
    data = {}
    data[1] = {"id": "PRT-0001", "name": 'Name 1', "supplier_id": 'SUP-0001', "unit_price": 10.75, "stock": 4, "category": 'engine'}
    data[2] = {"id": "PRT-0002", "name": 'Name 2', "supplier_id": 'SUP-0002', "unit_price": 21.25, "stock": 7, "category": 'brakes'}
    data[3] = {"id": "PRT-0003", "name": 'Name 3', "supplier_id": 'SUP-0003', "unit_price": 31.75, "stock": 10, "category": 'body'}
    data[4] = {"id": "PRT-0004", "name": 'Name 4', "supplier_id": 'SUP-0001', "unit_price": 42.25, "stock": 13, "category": 'electrical'}
    return Part.from_dict(data[n])


class TestPart(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = PartStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = PartStore([make(1), make(2)])
        svc.update_part(store, "PRT-0002", name='Name 3')
        self.assertEqual(store.get("PRT-0002").name, 'Name 3')

    def test_count_by_category(self):
        counts = svc.count_by_category([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(name='Name 2')
        self.assertEqual(a.diff(b), {"name": ('Name 1', 'Name 2')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = PartStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "PRT-0001")
        self.assertEqual(store.page(1, 5)[0].id, "PRT-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = PartStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_unit_price_stats(self):
        stats = svc.unit_price_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.unit_price_stats([]))

    def test_group_by_supplier(self):
        groups = svc.group_by_supplier([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_suppliers(groups[k][0] for k in groups))

    def test_only_category(self):
        picked = svc.only_category([make(1), make(2)], 'engine')
        self.assertEqual([r.id for r in picked], ["PRT-0001"])
        with self.assertRaises(ValidationError):
            svc.only_category([make(1)], "no-such-category")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = PartStore([make(1), make(2)])
        text = report.part_summary(store).render()
        self.assertIn("parts", text)
        self.assertEqual(len(report.part_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
