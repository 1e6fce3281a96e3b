import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.customer import Customer, parse_row, to_row
from fleetops.reports import customer_report as report
from fleetops.services import customer_service as svc
from fleetops.store.customer_store import CustomerStore


def make(n):
    data = {}
    data[1] = {"id": "CUS-0001", "name": 'Name 1', "segment": 'retail', "city": 'City 1', "credit_limit": 10.75}
    data[2] = {"id": "CUS-0002", "name": 'Name 2', "segment": 'industrial', "city": 'City 2', "credit_limit": 21.25}
    data[3] = {"id": "CUS-0003", "name": 'Name 3', "segment": 'public', "city": 'City 3', "credit_limit": 31.75}
    data[4] = {"id": "CUS-0004", "name": 'Name 4', "segment": 'retail', "city": 'City 4', "credit_limit": 42.25}
    return Customer.from_dict(data[n])


class TestCustomer(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = CustomerStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = CustomerStore([make(1), make(2)])
        svc.update_customer(store, "CUS-0002", name='Name 3')
        self.assertEqual(store.get("CUS-0002").name, 'Name 3')

    def test_count_by_segment(self):
        counts = svc.count_by_segment([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(name='Name 2')
        self.assertEqual(a.diff(b), {"name": ('Name 1', 'Name 2')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = CustomerStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "CUS-0001")
        self.assertEqual(store.page(1, 5)[0].id, "CUS-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = CustomerStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_credit_limit_stats(self):
        stats = svc.credit_limit_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.credit_limit_stats([]))

    def test_only_segment(self):
        picked = svc.only_segment([make(1), make(2)], 'retail')
        self.assertEqual([r.id for r in picked], ["CUS-0001"])
        with self.assertRaises(ValidationError):
            svc.only_segment([make(1)], "no-such-segment")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = CustomerStore([make(1), make(2)])
        text = report.customer_summary(store).render()
        self.assertIn("customers", text)
        self.assertEqual(len(report.customer_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
