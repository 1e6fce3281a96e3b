import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.stock_count_repo import StockCountRepository
from depot.serializers.stock_count_csv import from_csv, to_csv
from depot.services.stock_count_service import StockCountService


def make_service():
    bus = EventBus()
    return StockCountService(StockCountRepository(), bus), bus


class TestStockCount(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(product_id='product_id-0', bin_id='bin_id-0', counted_on=date(2024, 1, 1), quantity=3)
        self.assertTrue(record.id.startswith("CNT-"))
        self.assertEqual(bus.history[-1][0], "stock_count.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(product_id='product_id-0', bin_id='bin_id-0', counted_on=date(2024, 1, 1), quantity=3)
        service.update(record.id, product_id="changed")
        self.assertEqual(service.repository.get(record.id).product_id, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(product_id='product_id-0', bin_id='bin_id-0', counted_on=date(2024, 1, 1), quantity=3)
        service.create(product_id='product_id-1', bin_id='bin_id-1', counted_on=date(2024, 2, 2), quantity=4)
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(product_id='product_id-0', bin_id='bin_id-0', counted_on=date(2024, 1, 1), quantity=3)
        bad = dict(good, product_id="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(product_id='product_id-0', bin_id='bin_id-0', counted_on=date(2024, 1, 1), quantity=3)
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["stock_count.created", "stock_count.archived", "stock_count.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(product_id='product_id-0', bin_id='bin_id-0', counted_on=date(2024, 1, 1), quantity=3)
        self.assertEqual(len(service.search("product_id-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
