import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.depot import Depot, parse_row, to_row
from fleetops.reports import depot_report as report
from fleetops.services import depot_service as svc
from fleetops.store.depot_store import DepotStore


def make(n):
    data = {}
    data[1] = {"id": "DEP-0001", "name": 'Name 1', "city": 'City 1', "region": 'north', "bays": 4, "opened": '2024-01-11'}
    data[2] = {"id": "DEP-0002", "name": 'Name 2', "city": 'City 2', "region": 'south', "bays": 7, "opened": '2024-02-12'}
    data[3] = {"id": "DEP-0003", "name": 'Name 3', "city": 'City 3', "region": 'east', "bays": 10, "opened": '2024-03-13'}
    data[4] = {"id": "DEP-0004", "name": 'Name 4', "city": 'City 4', "region": 'west', "bays": 13, "opened": '2024-04-14'}
    return Depot.from_dict(data[n])


class TestDepot(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = DepotStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = DepotStore([make(1), make(2)])
        svc.update_depot(store, "DEP-0002", name='Name 3')
        self.assertEqual(store.get("DEP-0002").name, 'Name 3')

    def test_count_by_region(self):
        counts = svc.count_by_region([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(name='Name 2')
        self.assertEqual(a.diff(b), {"name": ('Name 1', 'Name 2')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = DepotStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "DEP-0001")
        self.assertEqual(store.page(1, 5)[0].id, "DEP-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = DepotStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_bays_stats(self):
        stats = svc.bays_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (4, 10))
        self.assertIsNone(svc.bays_stats([]))

    def test_only_region(self):
        picked = svc.only_region([make(1), make(2)], 'north')
        self.assertEqual([r.id for r in picked], ["DEP-0001"])
        with self.assertRaises(ValidationError):
            svc.only_region([make(1)], "no-such-region")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = DepotStore([make(1), make(2)])
        text = report.depot_summary(store).render()
        self.assertIn("depots", text)
        self.assertEqual(len(report.depot_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
