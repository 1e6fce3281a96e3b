import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.stop import Stop, parse_row, to_row
from fleetops.reports import stop_report as report
from fleetops.services import stop_service as svc
from fleetops.store.stop_store import StopStore


def make(n):
    data = {}
    data[1] = {"id": "STP-0001", "route_id": 'RTE-0001', "sequence": 1, "customer_id": 'CUS-0001', "window_minutes": 4}
    data[2] = {"id": "STP-0002", "route_id": 'RTE-0002', "sequence": 2, "customer_id": 'CUS-0002', "window_minutes": 7}
    data[3] = {"id": "STP-0003", "route_id": 'RTE-0003', "sequence": 3, "customer_id": 'CUS-0003', "window_minutes": 10}
    data[4] = {"id": "STP-0004", "route_id": 'RTE-0001', "sequence": 4, "customer_id": 'CUS-0001', "window_minutes": 13}
    return Stop.from_dict(data[n])


class TestStop(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = StopStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = StopStore([make(1), make(2)])
        svc.update_stop(store, "STP-0002", route_id='RTE-0003')
        self.assertEqual(store.get("STP-0002").route_id, 'RTE-0003')

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(route_id='RTE-0002')
        self.assertEqual(a.diff(b), {"route_id": ('RTE-0001', 'RTE-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = StopStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "STP-0001")
        self.assertEqual(store.page(1, 5)[0].id, "STP-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = StopStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_sequence_stats(self):
        stats = svc.sequence_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (1, 3))
        self.assertIsNone(svc.sequence_stats([]))

    def test_group_by_route(self):
        groups = svc.group_by_route([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_routes(groups[k][0] for k in groups))

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
        store = StopStore([make(1), make(2)])
        text = report.stop_summary(store).render()
        self.assertIn("stops", text)
        self.assertEqual(len(report.stop_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
