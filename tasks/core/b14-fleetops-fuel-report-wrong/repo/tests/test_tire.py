import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.tire import Tire, parse_row, to_row
from fleetops.reports import tire_report as report
from fleetops.services import tire_service as svc
from fleetops.store.tire_store import TireStore


def make(n):
    data = {}
    data[1] = {"id": "TIR-0001", "vehicle_id": 'VEH-0001', "position": 'FL', "fitted": '2024-01-11', "tread_mm": 10.75}
    data[2] = {"id": "TIR-0002", "vehicle_id": 'VEH-0002', "position": 'FR', "fitted": '2024-02-12', "tread_mm": 21.25}
    data[3] = {"id": "TIR-0003", "vehicle_id": 'VEH-0003', "position": 'RL', "fitted": '2024-03-13', "tread_mm": 31.75}
    data[4] = {"id": "TIR-0004", "vehicle_id": 'VEH-0001', "position": 'RR', "fitted": '2024-04-14', "tread_mm": 42.25}
    return Tire.from_dict(data[n])


class TestTire(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = TireStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = TireStore([make(1), make(2)])
        svc.update_tire(store, "TIR-0002", vehicle_id='VEH-0003')
        self.assertEqual(store.get("TIR-0002").vehicle_id, 'VEH-0003')

    def test_count_by_position(self):
        counts = svc.count_by_position([make(1), make(2), make(3)])
        self.assertEqual(sum(counts.values()), 3)

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(vehicle_id='VEH-0002')
        self.assertEqual(a.diff(b), {"vehicle_id": ('VEH-0001', 'VEH-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = TireStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "TIR-0001")
        self.assertEqual(store.page(1, 5)[0].id, "TIR-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = TireStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_tread_mm_stats(self):
        stats = svc.tread_mm_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (10.75, 31.75))
        self.assertIsNone(svc.tread_mm_stats([]))

    def test_group_by_vehicle(self):
        groups = svc.group_by_vehicle([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_vehicles(groups[k][0] for k in groups))

    def test_only_position(self):
        picked = svc.only_position([make(1), make(2)], 'FL')
        self.assertEqual([r.id for r in picked], ["TIR-0001"])
        with self.assertRaises(ValidationError):
            svc.only_position([make(1)], "no-such-position")

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = TireStore([make(1), make(2)])
        text = report.tire_summary(store).render()
        self.assertIn("tires", text)
        self.assertEqual(len(report.tire_detail(store.all(), limit=1).rows), 1)

    def test_problems_lists_every_field(self):
        record = make(1)
        record.id = "X-1"
        record.vehicle_id = ''
        self.assertEqual(len(record.problems()), 2)
        self.assertFalse(record.is_valid())
        self.assertTrue(make(2).is_valid())

    def test_json_round_trip(self):
        record = make(3)
        self.assertEqual(Tire.from_json(record.to_json()), record)
        with self.assertRaises(ValidationError):
            Tire.from_json("[1, 2]")
        with self.assertRaises(ValidationError):
            Tire.from_json("{not json")

    def test_json_lines_import(self):
        text = svc.export_json_lines([make(1), make(2)])
        store = TireStore([make(1)])
        problems = svc.import_json_lines(store, text + "\n{}\n")
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)
        self.assertTrue(problems[0].startswith("line 4: "))

    def test_matches_and_label(self):
        record = make(1)
        self.assertTrue(record.matches(id="TIR-0001"))
        self.assertFalse(record.matches(id="TIR-0002"))
        with self.assertRaises(AttributeError):
            record.matches(nope=1)
        self.assertTrue(record.label().startswith("TIR-0001 ("))

    def test_store_index_and_counts(self):
        store = TireStore([make(1), make(2), make(3), make(4)])
        index = store.index_by("vehicle_id")
        self.assertEqual(sum(len(v) for v in index.values()), 4)
        self.assertEqual(store.count_where(id="TIR-0003"), 1)
        self.assertEqual(store.first_where(id="TIR-0002"), make(2))
        self.assertIsNone(store.first_where(id="nope"))
        with self.assertRaises(AttributeError):
            store.index_by("nope")

    def test_store_upsert_snapshot_restore(self):
        store = TireStore([make(1), make(2)])
        saved = store.snapshot()
        self.assertFalse(store.upsert(make(3)))
        self.assertTrue(store.upsert(make(1)))
        self.assertEqual(len(store), 3)
        store.restore(saved)
        self.assertEqual(store.ids(), ["TIR-0001", "TIR-0002"])
        self.assertEqual([r.id for r in store.pop_where(id="TIR-0001")], ["TIR-0001"])
        self.assertEqual(len(store), 1)

    def test_add_many_keeps_good_records(self):
        bad = make(3)
        bad.id = "nope"
        store = TireStore([make(1)])
        problems = store.add_many([make(1), make(2), bad])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_duplicates_and_changes(self):
        twin = make(1).to_dict()
        twin["id"] = "TIR-0009"
        twin = Tire.from_dict(twin)
        self.assertTrue(make(1).same_content(twin))
        self.assertEqual(svc.find_duplicates([make(1), make(2), twin]), [["TIR-0001", "TIR-0009"]])
        changed = make(2).copy_with(vehicle_id='VEH-0003')
        changes = svc.changes_between([make(1), make(2)], [changed, make(3)])
        self.assertEqual(changes, {"added": ["TIR-0003"], "removed": ["TIR-0001"], "changed": ["TIR-0002"]})
        table = report.tire_changes([make(1), make(2)], [changed, make(3)])
        self.assertEqual(len(table.rows), 3)

    def test_merge_into(self):
        store = TireStore([make(1)])
        counts = svc.merge_into(store, [make(1), make(2)])
        self.assertEqual(counts, {"added": 1, "replaced": 0, "skipped": 1})
        counts = svc.merge_into(store, [make(1)], overwrite=True)
        self.assertEqual(counts["replaced"], 1)

    def test_check_references(self):
        known = {'VEH-0001'}
        class Known:
            def has(self, record_id):
                return record_id in known

        problems = svc.check_references([make(1), make(2)], vehicles=Known())
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("TIR-0002: no vehicle "))
        self.assertEqual(svc.check_references([make(1), make(2)]), [])
        counts = svc.count_by_vehicle([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(counts.values()), 4)
        self.assertEqual(len(report.tire_by_vehicle([make(1), make(4)]).rows), 1)

    def test_share_by_position(self):
        shares = svc.share_by_position([make(1), make(2)])
        self.assertEqual(round(sum(shares.values())), 100)
        self.assertEqual(set(svc.share_by_position([]).values()), {0.0})

    def test_tread_mm_median_buckets_outside(self):
        data = [make(1), make(2), make(3), make(4)]
        self.assertEqual(svc.median_tread_mm(data), 26.5)
        self.assertEqual(svc.median_tread_mm(data[:3]), 21.25)
        self.assertIsNone(svc.median_tread_mm([]))
        buckets = svc.bucket_tread_mm(data, [21.25, 42.25])
        self.assertEqual(list(buckets.values()), [1, 2, 1])
        with self.assertRaises(ValidationError):
            svc.bucket_tread_mm(data, [3, 1])
        self.assertEqual(len(svc.outside_tread_mm(data, 21.25, 31.75)), 2)
        stats = report.tire_stats(data)
        self.assertEqual(len(stats.rows), 1)

    def test_dates(self):
        data = [make(3), make(1), make(2)]
        self.assertEqual(svc.first_and_last(data), ('2024-01-11', '2024-03-13'))
        self.assertIsNone(svc.first_and_last([]))
        self.assertIsNone(svc.busiest_month([]))
        self.assertEqual(svc.busiest_month(data), '2024-01')
        gaps = svc.days_since_previous(data)
        self.assertEqual(len(gaps), 2)
        self.assertTrue(all(g >= 0 for g in gaps.values()))

    def test_problems_report(self):
        bad = make(2)
        bad.id = "nope"
        table = report.tire_problems([make(1), bad])
        self.assertEqual([row[0] for row in table.rows], ["nope"])


if __name__ == "__main__":
    unittest.main()
