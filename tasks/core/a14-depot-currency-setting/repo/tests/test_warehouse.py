import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.warehouse_repo import WarehouseRepository
from depot.serializers.warehouse_csv import from_csv, to_csv
from depot.services.warehouse_service import WarehouseService


def make_service():
    bus = EventBus()
    return WarehouseService(WarehouseRepository(), bus), bus


class TestWarehouse(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(name='name-0', city='city-0', capacity_pallets=3, cold_storage=True)
        self.assertTrue(record.id.startswith("WH-"))
        self.assertEqual(bus.history[-1][0], "warehouse.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(name='name-0', city='city-0', capacity_pallets=3, cold_storage=True)
        service.update(record.id, name="changed")
        self.assertEqual(service.repository.get(record.id).name, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(name='name-0', city='city-0', capacity_pallets=3, cold_storage=True)
        service.create(name='name-1', city='city-1', capacity_pallets=4, cold_storage=False)
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(name='name-0', city='city-0', capacity_pallets=3, cold_storage=True)
        bad = dict(good, name="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(name='name-0', city='city-0', capacity_pallets=3, cold_storage=True)
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["warehouse.created", "warehouse.archived", "warehouse.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(name='name-0', city='city-0', capacity_pallets=3, cold_storage=True)
        self.assertEqual(len(service.search("name-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
