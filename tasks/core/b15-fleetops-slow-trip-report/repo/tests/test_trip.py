import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.trip import Trip, parse_row, to_row
from fleetops.reports import trip_report as report
from fleetops.services import trip_service as svc
from fleetops.store.trip_store import TripStore


def make(n):
    data = {}
    data[1] = {"id": "TRP-0001", "route_id": 'RTE-0001', "driver_id": 'DRV-0001', "vehicle_id": 'VEH-0001', "day": '2024-01-11', "distance": 10.75, "status": 'planned'}
    data[2] = {"id": "TRP-0002", "route_id": 'RTE-0002', "driver_id": 'DRV-0002', "vehicle_id": 'VEH-0002', "day": '2024-02-12', "distance": 21.25, "status": 'done'}
    data[3] = {"id": "TRP-0003", "route_id": 'RTE-0003', "driver_id": 'DRV-0003', "vehicle_id": 'VEH-0003', "day": '2024-03-13', "distance": 31.75, "status": 'cancelled'}
    data[4] = {"id": "TRP-0004", "route_id": 'RTE-0001', "driver_id": 'DRV-0001', "vehicle_id": 'VEH-0001', "day": '2024-04-14', "distance": 42.25, "status": 'planned'}
    return Trip.from_dict(data[n])


class TestTrip(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = TripStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = TripStore([make(1), make(2)])
        svc.update_trip(store, "TRP-0002", route_id='RTE-0003')
        self.assertEqual(store.get("TRP-0002").route_id, 'RTE-0003')

    def test_count_by_status(self):
        counts = svc.count_by_status([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(route_id='RTE-0002')
        self.assertEqual(a.diff(b), {"route_id": ('RTE-0001', 'RTE-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = TripStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "TRP-0001")
        self.assertEqual(store.page(1, 5)[0].id, "TRP-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = TripStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_distance_stats(self):
        stats = svc.distance_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.distance_stats([]))

    def test_group_by_route(self):
        groups = svc.group_by_route([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_routes(groups[k][0] for k in groups))

    def test_group_by_driver(self):
        groups = svc.group_by_driver([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_drivers(groups[k][0] for k in groups))

    def test_group_by_vehicle(self):
        groups = svc.group_by_vehicle([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_vehicles(groups[k][0] for k in groups))

    def test_only_status(self):
        picked = svc.only_status([make(1), make(2)], 'planned')
        self.assertEqual([r.id for r in picked], ["TRP-0001"])
        with self.assertRaises(ValidationError):
            svc.only_status([make(1)], "no-such-status")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = TripStore([make(1), make(2)])
        text = report.trip_summary(store).render()
        self.assertIn("trips", text)
        self.assertEqual(len(report.trip_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
