import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.toll import Toll, parse_row, to_row
from fleetops.reports import toll_report as report
from fleetops.services import toll_service as svc
from fleetops.store.toll_store import TollStore


def make(n):
    data = {}
    data[1] = {"id": "TOL-0001", "trip_id": 'TRP-0001', "day": '2024-01-11', "amount": 10.75, "road": 'Road 1'}
    data[2] = {"id": "TOL-0002", "trip_id": 'TRP-0002', "day": '2024-02-12', "amount": 21.25, "road": 'Road 2'}
    data[3] = {"id": "TOL-0003", "trip_id": 'TRP-0003', "day": '2024-03-13', "amount": 31.75, "road": 'Road 3'}
    data[4] = {"id": "TOL-0004", "trip_id": 'TRP-0001', "day": '2024-04-14', "amount": 42.25, "road": 'Road 4'}
    return Toll.from_dict(data[n])


class TestToll(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = TollStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = TollStore([make(1), make(2)])
        svc.update_toll(store, "TOL-0002", trip_id='TRP-0003')
        self.assertEqual(store.get("TOL-0002").trip_id, 'TRP-0003')

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(trip_id='TRP-0002')
        self.assertEqual(a.diff(b), {"trip_id": ('TRP-0001', 'TRP-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = TollStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "TOL-0001")
        self.assertEqual(store.page(1, 5)[0].id, "TOL-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = TollStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_amount_stats(self):
        stats = svc.amount_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.amount_stats([]))

    def test_group_by_trip(self):
        groups = svc.group_by_trip([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_trips(groups[k][0] for k in groups))

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = TollStore([make(1), make(2)])
        text = report.toll_summary(store).render()
        self.assertIn("tolls", text)
        self.assertEqual(len(report.toll_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
