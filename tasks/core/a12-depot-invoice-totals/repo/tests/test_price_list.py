import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.price_list_repo import PriceListRepository
from depot.serializers.price_list_csv import from_csv, to_csv
from depot.services.price_list_service import PriceListService


def make_service():
    bus = EventBus()
    return PriceListService(PriceListRepository(), bus), bus


class TestPriceList(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(name='name-0', segment='segment-0', valid_from=date(2024, 1, 1), discount_pct=3)
        self.assertTrue(record.id.startswith("PL-"))
        self.assertEqual(bus.history[-1][0], "price_list.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(name='name-0', segment='segment-0', valid_from=date(2024, 1, 1), discount_pct=3)
        service.update(record.id, name="changed")
        self.assertEqual(service.repository.get(record.id).name, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(name='name-0', segment='segment-0', valid_from=date(2024, 1, 1), discount_pct=3)
        service.create(name='name-1', segment='segment-1', valid_from=date(2024, 2, 2), discount_pct=4)
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(name='name-0', segment='segment-0', valid_from=date(2024, 1, 1), discount_pct=3)
        bad = dict(good, name="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(name='name-0', segment='segment-0', valid_from=date(2024, 1, 1), discount_pct=3)
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["price_list.created", "price_list.archived", "price_list.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(name='name-0', segment='segment-0', valid_from=date(2024, 1, 1), discount_pct=3)
        self.assertEqual(len(service.search("name-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
