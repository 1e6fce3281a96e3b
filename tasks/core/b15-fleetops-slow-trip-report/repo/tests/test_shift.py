import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.shift import Shift, parse_row, to_row
from fleetops.reports import shift_report as report
from fleetops.services import shift_service as svc
from fleetops.store.shift_store import ShiftStore


def make(n):
    data = {}
    data[1] = {"id": "SHF-0001", "driver_id": 'DRV-0001', "day": '2024-01-11', "hours": 10.75, "overtime": True}
    data[2] = {"id": "SHF-0002", "driver_id": 'DRV-0002', "day": '2024-02-12', "hours": 21.25, "overtime": True}
    data[3] = {"id": "SHF-0003", "driver_id": 'DRV-0003', "day": '2024-03-13', "hours": 31.75, "overtime": True}
    data[4] = {"id": "SHF-0004", "driver_id": 'DRV-0001', "day": '2024-04-14', "hours": 42.25, "overtime": False}
    return Shift.from_dict(data[n])


class TestShift(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = ShiftStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = ShiftStore([make(1), make(2)])
        svc.update_shift(store, "SHF-0002", driver_id='DRV-0003')
        self.assertEqual(store.get("SHF-0002").driver_id, 'DRV-0003')

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(driver_id='DRV-0002')
        self.assertEqual(a.diff(b), {"driver_id": ('DRV-0001', 'DRV-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = ShiftStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "SHF-0001")
        self.assertEqual(store.page(1, 5)[0].id, "SHF-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = ShiftStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_hours_stats(self):
        stats = svc.hours_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.hours_stats([]))

    def test_group_by_driver(self):
        groups = svc.group_by_driver([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_drivers(groups[k][0] for k in groups))

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = ShiftStore([make(1), make(2)])
        text = report.shift_summary(store).render()
        self.assertIn("shifts", text)
        self.assertEqual(len(report.shift_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
