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

    def test_problems_lists_every_field(self):
        record = make(1)
        record.id = "X-1"
        record.customer_id = ''
        self.assertEqual(len(record.problems()), 2)
        self.assertFalse(record.is_valid())
        self.assertTrue(make(2).is_valid())

    def test_json_round_trip(self):
        record = make(3)
        self.assertEqual(Shipment.from_json(record.to_json()), record)
        with self.assertRaises(ValidationError):
            Shipment.from_json("[1, 2]")
        with self.assertRaises(ValidationError):
            Shipment.from_json("{not json")

    def test_json_lines_import(self):
        text = svc.export_json_lines([make(1), make(2)])
        store = ShipmentStore([make(1)])
        problems = svc.import_json_lines(store, text + "\n{}\n")
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)
        self.assertTrue(problems[0].startswith("line 4: "))

    def test_matches_and_label(self):
        record = make(1)
        self.assertTrue(record.matches(id="SHP-0001"))
        self.assertFalse(record.matches(id="SHP-0002"))
        with self.assertRaises(AttributeError):
            record.matches(nope=1)
        self.assertTrue(record.label().startswith("SHP-0001 ("))

    def test_store_index_and_counts(self):
        store = ShipmentStore([make(1), make(2), make(3), make(4)])
        index = store.index_by("customer_id")
        self.assertEqual(sum(len(v) for v in index.values()), 4)
        self.assertEqual(store.count_where(id="SHP-0003"), 1)
        self.assertEqual(store.first_where(id="SHP-0002"), make(2))
        self.assertIsNone(store.first_where(id="nope"))
        with self.assertRaises(AttributeError):
            store.index_by("nope")

    def test_store_upsert_snapshot_restore(self):
        store = ShipmentStore([make(1), make(2)])
        saved = store.snapshot()
        self.assertFalse(store.upsert(make(3)))
        self.assertTrue(store.upsert(make(1)))
        self.assertEqual(len(store), 3)
        store.restore(saved)
        self.assertEqual(store.ids(), ["SHP-0001", "SHP-0002"])
        self.assertEqual([r.id for r in store.pop_where(id="SHP-0001")], ["SHP-0001"])
        self.assertEqual(len(store), 1)

    def test_add_many_keeps_good_records(self):
        bad = make(3)
        bad.id = "nope"
        store = ShipmentStore([make(1)])
        problems = store.add_many([make(1), make(2), bad])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_duplicates_and_changes(self):
        twin = make(1).to_dict()
        twin["id"] = "SHP-0009"
        twin = Shipment.from_dict(twin)
        self.assertTrue(make(1).same_content(twin))
        self.assertEqual(svc.find_duplicates([make(1), make(2), twin]), [["SHP-0001", "SHP-0009"]])
        changed = make(2).copy_with(customer_id='CUS-0003')
        changes = svc.changes_between([make(1), make(2)], [changed, make(3)])
        self.assertEqual(changes, {"added": ["SHP-0003"], "removed": ["SHP-0001"], "changed": ["SHP-0002"]})
        table = report.shipment_changes([make(1), make(2)], [changed, make(3)])
        self.assertEqual(len(table.rows), 3)

    def test_merge_into(self):
        store = ShipmentStore([make(1)])
        counts = svc.merge_into(store, [make(1), make(2)])
        self.assertEqual(counts, {"added": 1, "replaced": 0, "skipped": 1})
        counts = svc.merge_into(store, [make(1)], overwrite=True)
        self.assertEqual(counts["replaced"], 1)

    def test_check_references(self):
        known = {'CUS-0001'}
        class Known:
            def has(self, record_id):
                return record_id in known

        problems = svc.check_references([make(1), make(2)], customers=Known())
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("SHP-0002: no customer "))
        self.assertEqual(svc.check_references([make(1), make(2)]), [])
        counts = svc.count_by_customer([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(counts.values()), 4)
        self.assertEqual(len(report.shipment_by_customer([make(1), make(4)]).rows), 1)

    def test_share_by_status(self):
        shares = svc.share_by_status([make(1), make(2)])
        self.assertEqual(round(sum(shares.values())), 100)
        self.assertEqual(set(svc.share_by_status([]).values()), {0.0})

    def test_weight_kg_median_buckets_outside(self):
        data = [make(1), make(2), make(3), make(4)]
        self.assertEqual(svc.median_weight_kg(data), 26.5)
        self.assertEqual(svc.median_weight_kg(data[:3]), 21.25)
        self.assertIsNone(svc.median_weight_kg([]))
        buckets = svc.bucket_weight_kg(data, [21.25, 42.25])
        self.assertEqual(list(buckets.values()), [1, 2, 1])
        with self.assertRaises(ValidationError):
            svc.bucket_weight_kg(data, [3, 1])
        self.assertEqual(len(svc.outside_weight_kg(data, 21.25, 31.75)), 2)
        stats = report.shipment_stats(data)
        self.assertEqual(len(stats.rows), 1)

    def test_problems_report(self):
        bad = make(2)
        bad.id = "nope"
        table = report.shipment_problems([make(1), bad])
        self.assertEqual([row[0] for row in table.rows], ["nope"])


if __name__ == "__main__":
    unittest.main()
