import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.shipment import Shipment, parse_row, to_row
from fleetops.reports import shipment_report as report
from fleetops.services import shipment_service as svc
from fleetops.store.shipment_store import ShipmentStore


def make(n):
    data = {}
    data[1] = {"id": "SHP-0001", "customer_id": 'CUS-0001', "trip_id": 'TRP-0001', "weight_kg": 10.75, "status": 'booked'}
    data[2] = {"id": "SHP-0002", "customer_id": 'CUS-0002', "trip_id": 'TRP-0002', "weight_kg": 21.25, "status": 'loaded'}
    data[3] = {"id": "SHP-0003", "customer_id": 'CUS-0003', "trip_id": 'TRP-0003', "weight_kg": 31.75, "status": 'delivered'}
    data[4] = {"id": "SHP-0004", "customer_id": 'CUS-0001', "trip_id": 'TRP-0001', "weight_kg": 42.25, "status": 'booked'}
    return Shipment.from_dict(data[n])


class TestShipment(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = ShipmentStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = ShipmentStore([make(1), make(2)])
        svc.update_shipment(store, "SHP-0002", customer_id='CUS-0003')
        self.assertEqual(store.get("SHP-0002").customer_id, 'CUS-0003')

    def test_count_by_status(self):
        counts = svc.count_by_status([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(customer_id='CUS-0002')
        self.assertEqual(a.diff(b), {"customer_id": ('CUS-0001', 'CUS-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = ShipmentStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "SHP-0001")
        self.assertEqual(store.page(1, 5)[0].id, "SHP-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = ShipmentStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_weight_kg_stats(self):
        stats = svc.weight_kg_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.weight_kg_stats([]))

    def test_group_by_customer(self):
        groups = svc.group_by_customer([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_customers(groups[k][0] for k in groups))

    def test_group_by_trip(self):
        groups = svc.group_by_trip([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_trips(groups[k][0] for k in groups))

    def test_only_status(self):
        picked = svc.only_status([make(1), make(2)], 'booked')
        self.assertEqual([r.id for r in picked], ["SHP-0001"])
        with self.assertRaises(ValidationError):
            svc.only_status([make(1)], "no-such-status")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = ShipmentStore([make(1), make(2)])
        text = report.shipment_summary(store).render()
        self.assertIn("shipments", text)
        self.assertEqual(len(report.shipment_detail(store.all(), limit=1).rows), 1)


if __name__ == "__main__":
    unittest.main()
