import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.vehicle import Vehicle, parse_row, to_row
from fleetops.reports import vehicle_report as report
from fleetops.services import vehicle_service as svc
from fleetops.store.vehicle_store import VehicleStore


def make(n):
    data = {}
    data[1] = {"id": "VEH-0001", "plate": 'Plate 1', "make": 'Make 1', "year": 2016, "depot_id": 'DEP-0001', "odometer_unit": 'km', "capacity_kg": 10.75, "active": True}
    data[2] = {"id": "VEH-0002", "plate": 'Plate 2', "make": 'Make 2', "year": 2017, "depot_id": 'DEP-0002', "odometer_unit": 'mi', "capacity_kg": 21.25, "active": True}
    data[3] = {"id": "VEH-0003", "plate": 'Plate 3', "make": 'Make 3', "year": 2018, "depot_id": 'DEP-0003', "odometer_unit": 'km', "capacity_kg": 31.75, "active": True}
    data[4] = {"id": "VEH-0004", "plate": 'Plate 4', "make": 'Make 4', "year": 2019, "depot_id": 'DEP-0001', "odometer_unit": 'mi', "capacity_kg": 42.25, "active": False}
    return Vehicle.from_dict(data[n])


class TestVehicle(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = VehicleStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = VehicleStore([make(1), make(2)])
        svc.update_vehicle(store, "VEH-0002", plate='Plate 3')
        self.assertEqual(store.get("VEH-0002").plate, 'Plate 3')

    def test_count_by_odometer_unit(self):
        counts = svc.count_by_odometer_unit([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(plate='Plate 2')
        self.assertEqual(a.diff(b), {"plate": ('Plate 1', 'Plate 2')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = VehicleStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "VEH-0001")
        self.assertEqual(store.page(1, 5)[0].id, "VEH-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = VehicleStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_year_stats(self):
        stats = svc.year_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (2016, 2018))
        self.assertIsNone(svc.year_stats([]))

    def test_group_by_depot(self):
        groups = svc.group_by_depot([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_depots(groups[k][0] for k in groups))

    def test_only_odometer_unit(self):
        picked = svc.only_odometer_unit([make(1), make(2)], 'km')
        self.assertEqual([r.id for r in picked], ["VEH-0001"])
        with self.assertRaises(ValidationError):
            svc.only_odometer_unit([make(1)], "no-such-odometer_unit")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = VehicleStore([make(1), make(2)])
        text = report.vehicle_summary(store).render()
        self.assertIn("vehicles", text)
        self.assertEqual(len(report.vehicle_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
