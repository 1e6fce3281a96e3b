import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.driver import Driver, parse_row, to_row
from fleetops.reports import driver_report as report
from fleetops.services import driver_service as svc
from fleetops.store.driver_store import DriverStore


def make(n):
    data = {}
    data[1] = {"id": "DRV-0001", "name": 'Name 1', "license_class": 'B', "depot_id": 'DEP-0001', "hired": '2024-01-11', "hourly_rate": 10.75, "active": True}
    data[2] = {"id": "DRV-0002", "name": 'Name 2', "license_class": 'C', "depot_id": 'DEP-0002', "hired": '2024-02-12', "hourly_rate": 21.25, "active": True}
    data[3] = {"id": "DRV-0003", "name": 'Name 3', "license_class": 'CE', "depot_id": 'DEP-0003', "hired": '2024-03-13', "hourly_rate": 31.75, "active": True}
    data[4] = {"id": "DRV-0004", "name": 'Name 4', "license_class": 'B', "depot_id": 'DEP-0001', "hired": '2024-04-14', "hourly_rate": 42.25, "active": False}
    return Driver.from_dict(data[n])


class TestDriver(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = DriverStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = DriverStore([make(1), make(2)])
        svc.update_driver(store, "DRV-0002", name='Name 3')
        self.assertEqual(store.get("DRV-0002").name, 'Name 3')

    def test_count_by_license_class(self):
        counts = svc.count_by_license_class([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(name='Name 2')
        self.assertEqual(a.diff(b), {"name": ('Name 1', 'Name 2')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = DriverStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "DRV-0001")
        self.assertEqual(store.page(1, 5)[0].id, "DRV-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = DriverStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_hourly_rate_stats(self):
        stats = svc.hourly_rate_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.hourly_rate_stats([]))

    def test_only_license_class(self):
        picked = svc.only_license_class([make(1), make(2)], 'B')
        self.assertEqual([r.id for r in picked], ["DRV-0001"])
        with self.assertRaises(ValidationError):
            svc.only_license_class([make(1)], "no-such-license_class")

    def test_group_by_depot(self):
        groups = svc.group_by_depot([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_depots(groups[k][0] for k in groups))

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = DriverStore([make(1), make(2)])
        text = report.driver_summary(store).render()
        self.assertIn("drivers", text)
        self.assertEqual(len(report.driver_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
