import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.incident import Incident, parse_row, to_row
from fleetops.reports import incident_report as report
from fleetops.services import incident_service as svc
from fleetops.store.incident_store import IncidentStore


def make(n):
    data = {}
    data[1] = {"id": "INC-0001", "vehicle_id": 'VEH-0001', "driver_id": 'DRV-0001', "day": '2024-01-11', "severity": 'low', "damage": 10.75}
    data[2] = {"id": "INC-0002", "vehicle_id": 'VEH-0002', "driver_id": 'DRV-0002', "day": '2024-02-12', "severity": 'medium', "damage": 21.25}
    data[3] = {"id": "INC-0003", "vehicle_id": 'VEH-0003', "driver_id": 'DRV-0003', "day": '2024-03-13', "severity": 'high', "damage": 31.75}
    data[4] = {"id": "INC-0004", "vehicle_id": 'VEH-0001', "driver_id": 'DRV-0001', "day": '2024-04-14', "severity": 'low', "damage": 42.25}
    return Incident.from_dict(data[n])


class TestIncident(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = IncidentStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = IncidentStore([make(1), make(2)])
        svc.update_incident(store, "INC-0002", vehicle_id='VEH-0003')
        self.assertEqual(store.get("INC-0002").vehicle_id, 'VEH-0003')

    def test_count_by_severity(self):
        counts = svc.count_by_severity([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(vehicle_id='VEH-0002')
        self.assertEqual(a.diff(b), {"vehicle_id": ('VEH-0001', 'VEH-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = IncidentStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "INC-0001")
        self.assertEqual(store.page(1, 5)[0].id, "INC-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = IncidentStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_damage_stats(self):
        stats = svc.damage_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.damage_stats([]))

    def test_group_by_vehicle(self):
        groups = svc.group_by_vehicle([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_vehicles(groups[k][0] for k in groups))

    def test_group_by_driver(self):
        groups = svc.group_by_driver([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_drivers(groups[k][0] for k in groups))

    def test_only_severity(self):
        picked = svc.only_severity([make(1), make(2)], 'low')
        self.assertEqual([r.id for r in picked], ["INC-0001"])
        with self.assertRaises(ValidationError):
            svc.only_severity([make(1)], "no-such-severity")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = IncidentStore([make(1), make(2)])
        text = report.incident_summary(store).render()
        self.assertIn("incidents", text)
        self.assertEqual(len(report.incident_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
