import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.route import Route, parse_row, to_row
from fleetops.reports import route_report as report
from fleetops.services import route_service as svc
from fleetops.store.route_store import RouteStore


def make(n):
    data = {}
    data[1] = {"id": "RTE-0001", "name": 'Name 1', "depot_id": 'DEP-0001', "distance_km": 10.75, "kind": 'urban'}
    data[2] = {"id": "RTE-0002", "name": 'Name 2', "depot_id": 'DEP-0002', "distance_km": 21.25, "kind": 'regional'}
    data[3] = {"id": "RTE-0003", "name": 'Name 3', "depot_id": 'DEP-0003', "distance_km": 31.75, "kind": 'longhaul'}
    data[4] = {"id": "RTE-0004", "name": 'Name 4', "depot_id": 'DEP-0001', "distance_km": 42.25, "kind": 'urban'}
    return Route.from_dict(data[n])


class TestRoute(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = RouteStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = RouteStore([make(1), make(2)])
        svc.update_route(store, "RTE-0002", name='Name 3')
        self.assertEqual(store.get("RTE-0002").name, 'Name 3')

    def test_count_by_kind(self):
        counts = svc.count_by_kind([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(name='Name 2')
        self.assertEqual(a.diff(b), {"name": ('Name 1', 'Name 2')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = RouteStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "RTE-0001")
        self.assertEqual(store.page(1, 5)[0].id, "RTE-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = RouteStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_distance_km_stats(self):
        stats = svc.distance_km_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.distance_km_stats([]))

    def test_group_by_depot(self):
        groups = svc.group_by_depot([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_depots(groups[k][0] for k in groups))

    def test_only_kind(self):
        picked = svc.only_kind([make(1), make(2)], 'urban')
        self.assertEqual([r.id for r in picked], ["RTE-0001"])
        with self.assertRaises(ValidationError):
            svc.only_kind([make(1)], "no-such-kind")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = RouteStore([make(1), make(2)])
        text = report.route_summary(store).render()
        self.assertIn("routes", text)
        self.assertEqual(len(report.route_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
