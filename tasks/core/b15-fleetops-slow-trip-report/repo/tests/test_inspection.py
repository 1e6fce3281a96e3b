import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.inspection import Inspection, parse_row, to_row
from fleetops.reports import inspection_report as report
from fleetops.services import inspection_service as svc
from fleetops.store.inspection_store import InspectionStore


def make(n):
    data = {}
    data[1] = {"id": "INS-0001", "vehicle_id": 'VEH-0001', "day": '2024-01-11', "result": 'pass', "inspector": 'Inspector 1'}
    data[2] = {"id": "INS-0002", "vehicle_id": 'VEH-0002', "day": '2024-02-12', "result": 'minor', "inspector": 'Inspector 2'}
    data[3] = {"id": "INS-0003", "vehicle_id": 'VEH-0003', "day": '2024-03-13', "result": 'fail', "inspector": 'Inspector 3'}
    data[4] = {"id": "INS-0004", "vehicle_id": 'VEH-0001', "day": '2024-04-14', "result": 'pass', "inspector": 'Inspector 4'}
    return Inspection.from_dict(data[n])


class TestInspection(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = InspectionStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = InspectionStore([make(1), make(2)])
        svc.update_inspection(store, "INS-0002", vehicle_id='VEH-0003')
        self.assertEqual(store.get("INS-0002").vehicle_id, 'VEH-0003')

    def test_count_by_result(self):
        counts = svc.count_by_result([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(vehicle_id='VEH-0002')
        self.assertEqual(a.diff(b), {"vehicle_id": ('VEH-0001', 'VEH-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = InspectionStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "INS-0001")
        self.assertEqual(store.page(1, 5)[0].id, "INS-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = InspectionStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_group_by_vehicle(self):
        groups = svc.group_by_vehicle([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_vehicles(groups[k][0] for k in groups))

    def test_only_result(self):
        picked = svc.only_result([make(1), make(2)], 'pass')
        self.assertEqual([r.id for r in picked], ["INS-0001"])
        with self.assertRaises(ValidationError):
            svc.only_result([make(1)], "no-such-result")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = InspectionStore([make(1), make(2)])
        text = report.inspection_summary(store).render()
        self.assertIn("inspections", text)
        self.assertEqual(len(report.inspection_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
