import unittest

from fleetops.errors import DuplicateError, ValidationError
from fleetops.models.stop import Stop, parse_row, to_row
from fleetops.reports import stop_report as report
from fleetops.services import stop_service as svc
from fleetops.store.stop_store import StopStore


def make(n):
    data = {}
    data[1] = {"id": "STP-0001", "route_id": 'RTE-0001', "sequence": 1, "customer_id": 'CUS-0001', "window_minutes": 4}
    data[2] = {"id": "STP-0002", "route_id": 'RTE-0002', "sequence": 2, "customer_id": 'CUS-0002', "window_minutes": 7}
    data[3] = {"id": "STP-0003", "route_id": 'RTE-0003', "sequence": 3, "customer_id": 'CUS-0003', "window_minutes": 10}
    data[4] = {"id": "STP-0004", "route_id": 'RTE-0001', "sequence": 4, "customer_id": 'CUS-0001', "window_minutes": 13}
    return Stop.from_dict(data[n])


class TestStop(unittest.TestCase):
    def test_round_trip_row(self):
        record = make(1)
        self.assertEqual(parse_row(to_row(record)), record)

    def test_bad_id(self):
        record = make(2)
        record.id = "X-1"
        with self.assertRaises(ValidationError):
            record.validate()

    def test_store_rejects_duplicates(self):
        store = StopStore([make(1)])
        with self.assertRaises(DuplicateError):
            store.add(make(1))

    def test_update(self):
        store = StopStore([make(1), make(2)])
        svc.update_stop(store, "STP-0002", route_id='RTE-0003')
        self.assertEqual(store.get("STP-0002").route_id, 'RTE-0003')

    def test_copy_with_and_diff(self):
        a = make(1)
        b = a.copy_with(route_id='RTE-0002')
        self.assertEqual(a.diff(b), {"route_id": ('RTE-0001', 'RTE-0002')})
        with self.assertRaises(ValidationError):
            a.copy_with(id="x")

    def test_sorted_by_and_page(self):
        store = StopStore([make(3), make(1), make(2)])
        self.assertEqual(len(store.sorted_by("id")), 3)
        self.assertEqual(store.sorted_by("id")[0].id, "STP-0001")
        self.assertEqual(store.page(1, 5)[0].id, "STP-0001")
        with self.assertRaises(ValueError):
            store.page(-1, 5)

    def test_export_import(self):
        rows = svc.export_rows([make(1), make(2)])
        store = StopStore()
        problems = svc.import_rows(store, rows + [rows[0], {}])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_sequence_stats(self):
        stats = svc.sequence_stats([make(1), make(2), make(3)])
        self.assertEqual((stats["min"], stats["max"]), (1, 3))
        self.assertIsNone(svc.sequence_stats([]))

    def test_group_by_route(self):
        groups = svc.group_by_route([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_routes(groups[k][0] for k in groups))

    def test_group_by_customer(self):
        groups = svc.group_by_customer([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(len(g) for g in groups.values()), 4)
        self.assertEqual(sorted(groups), svc.distinct_customers(groups[k][0] for k in groups))

    def test_validate_all(self):
        bad = make(2)
        bad.id = "nope"
        problems = svc.validate_all([make(1), bad])
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("nope: "))

    def test_reports_render(self):
        store = StopStore([make(1), make(2)])
        text = report.stop_summary(store).render()
        self.assertIn("stops", text)
        self.assertEqual(len(report.stop_detail(store.all(), limit=1).rows), 1)

    def test_problems_lists_every_field(self):
        record = make(1)
        record.id = "X-1"
        record.route_id = ''
        self.assertEqual(len(record.problems()), 2)
        self.assertFalse(record.is_valid())
        self.assertTrue(make(2).is_valid())

    def test_json_round_trip(self):
        record = make(3)
        self.assertEqual(Stop.from_json(record.to_json()), record)
        with self.assertRaises(ValidationError):
            Stop.from_json("[1, 2]")
        with self.assertRaises(ValidationError):
            Stop.from_json("{not json")

    def test_json_lines_import(self):
        text = svc.export_json_lines([make(1), make(2)])
        store = StopStore([make(1)])
        problems = svc.import_json_lines(store, text + "\n{}\n")
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)
        self.assertTrue(problems[0].startswith("line 4: "))

    def test_matches_and_label(self):
        record = make(1)
        self.assertTrue(record.matches(id="STP-0001"))
        self.assertFalse(record.matches(id="STP-0002"))
        with self.assertRaises(AttributeError):
            record.matches(nope=1)
        self.assertTrue(record.label().startswith("STP-0001 ("))

    def test_store_index_and_counts(self):
        store = StopStore([make(1), make(2), make(3), make(4)])
        index = store.index_by("route_id")
        self.assertEqual(sum(len(v) for v in index.values()), 4)
        self.assertEqual(store.count_where(id="STP-0003"), 1)
        self.assertEqual(store.first_where(id="STP-0002"), make(2))
        self.assertIsNone(store.first_where(id="nope"))
        with self.assertRaises(AttributeError):
            store.index_by("nope")

    def test_store_upsert_snapshot_restore(self):
        store = StopStore([make(1), make(2)])
        saved = store.snapshot()
        self.assertFalse(store.upsert(make(3)))
        self.assertTrue(store.upsert(make(1)))
        self.assertEqual(len(store), 3)
        store.restore(saved)
        self.assertEqual(store.ids(), ["STP-0001", "STP-0002"])
        self.assertEqual([r.id for r in store.pop_where(id="STP-0001")], ["STP-0001"])
        self.assertEqual(len(store), 1)

    def test_add_many_keeps_good_records(self):
        bad = make(3)
        bad.id = "nope"
        store = StopStore([make(1)])
        problems = store.add_many([make(1), make(2), bad])
        self.assertEqual(len(store), 2)
        self.assertEqual(len(problems), 2)

    def test_duplicates_and_changes(self):
        twin = make(1).to_dict()
        twin["id"] = "STP-0009"
        twin = Stop.from_dict(twin)
        self.assertTrue(make(1).same_content(twin))
        self.assertEqual(svc.find_duplicates([make(1), make(2), twin]), [["STP-0001", "STP-0009"]])
        changed = make(2).copy_with(route_id='RTE-0003')
        changes = svc.changes_between([make(1), make(2)], [changed, make(3)])
        self.assertEqual(changes, {"added": ["STP-0003"], "removed": ["STP-0001"], "changed": ["STP-0002"]})
        table = report.stop_changes([make(1), make(2)], [changed, make(3)])
        self.assertEqual(len(table.rows), 3)

    def test_merge_into(self):
        store = StopStore([make(1)])
        counts = svc.merge_into(store, [make(1), make(2)])
        self.assertEqual(counts, {"added": 1, "replaced": 0, "skipped": 1})
        counts = svc.merge_into(store, [make(1)], overwrite=True)
        self.assertEqual(counts["replaced"], 1)

    def test_check_references(self):
        known = {'RTE-0001'}
        class Known:
            def has(self, record_id):
                return record_id in known

        problems = svc.check_references([make(1), make(2)], routes=Known())
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("STP-0002: no route "))
        self.assertEqual(svc.check_references([make(1), make(2)]), [])
        counts = svc.count_by_route([make(1), make(2), make(3), make(4)])
        self.assertEqual(sum(counts.values()), 4)
        self.assertEqual(len(report.stop_by_route([make(1), make(4)]).rows), 1)

    def test_window_minutes_median_buckets_outside(self):
        data = [make(1), make(2), make(3), make(4)]
        self.assertEqual(svc.median_window_minutes(data), 8.5)
        self.assertEqual(svc.median_window_minutes(data[:3]), 7)
        self.assertIsNone(svc.median_window_minutes([]))
        buckets = svc.bucket_window_minutes(data, [7, 13])
        self.assertEqual(list(buckets.values()), [1, 2, 1])
        with self.assertRaises(ValidationError):
            svc.bucket_window_minutes(data, [3, 1])
        self.assertEqual(len(svc.outside_window_minutes(data, 7, 10)), 2)
        stats = report.stop_stats(data)
        self.assertEqual(len(stats.rows), 1)

    def test_problems_report(self):
        bad = make(2)
        bad.id = "nope"
        table = report.stop_problems([make(1), bad])
        self.assertEqual([row[0] for row in table.rows], ["nope"])


if __name__ == "__main__":
    unittest.main()
