import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.bin_repo import BinRepository
from depot.serializers.bin_csv import from_csv, to_csv
from depot.services.bin_service import BinService


def make_service():
    bus = EventBus()
    return BinService(BinRepository(), bus), bus


class TestBin(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(code='code-0', warehouse_id='warehouse_id-0', max_weight_g=3, zone='ambient')
        self.assertTrue(record.id.startswith("BIN-"))
        self.assertEqual(bus.history[-1][0], "bin.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(code='code-0', warehouse_id='warehouse_id-0', max_weight_g=3, zone='ambient')
        service.update(record.id, code="changed")
        self.assertEqual(service.repository.get(record.id).code, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(code='code-0', warehouse_id='warehouse_id-0', max_weight_g=3, zone='ambient')
        service.create(code='code-1', warehouse_id='warehouse_id-1', max_weight_g=4, zone='chilled')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(code='code-0', warehouse_id='warehouse_id-0', max_weight_g=3, zone='ambient')
        bad = dict(good, code="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(code='code-0', warehouse_id='warehouse_id-0', max_weight_g=3, zone='ambient')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["bin.created", "bin.archived", "bin.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(code='code-0', warehouse_id='warehouse_id-0', max_weight_g=3, zone='ambient')
        self.assertEqual(len(service.search("code-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
