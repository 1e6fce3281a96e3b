import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.shipment_repo import ShipmentRepository
from depot.serializers.shipment_csv import from_csv, to_csv
from depot.services.shipment_service import ShipmentService


def make_service():
    bus = EventBus()
    return ShipmentService(ShipmentRepository(), bus), bus


class TestShipment(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(tracking='tracking-0', order_id='order_id-0', shipped_on=date(2024, 1, 1), parcels=3, carrier='road')
        self.assertTrue(record.id.startswith("SHP-"))
        self.assertEqual(bus.history[-1][0], "shipment.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(tracking='tracking-0', order_id='order_id-0', shipped_on=date(2024, 1, 1), parcels=3, carrier='road')
        service.update(record.id, tracking="changed")
        self.assertEqual(service.repository.get(record.id).tracking, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(tracking='tracking-0', order_id='order_id-0', shipped_on=date(2024, 1, 1), parcels=3, carrier='road')
        service.create(tracking='tracking-1', order_id='order_id-1', shipped_on=date(2024, 2, 2), parcels=4, carrier='rail')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(tracking='tracking-0', order_id='order_id-0', shipped_on=date(2024, 1, 1), parcels=3, carrier='road')
        bad = dict(good, tracking="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(tracking='tracking-0', order_id='order_id-0', shipped_on=date(2024, 1, 1), parcels=3, carrier='road')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["shipment.created", "shipment.archived", "shipment.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(tracking='tracking-0', order_id='order_id-0', shipped_on=date(2024, 1, 1), parcels=3, carrier='road')
        self.assertEqual(len(service.search("tracking-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
