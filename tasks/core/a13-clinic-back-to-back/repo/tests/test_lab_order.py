import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.lab_order_repo import LabOrderRepository
from clinic.serializers.lab_order_csv import from_csv, to_csv
from clinic.services.lab_order_service import LabOrderService


def make_service():
    bus = EventBus()
    return LabOrderService(LabOrderRepository(), bus), bus


class TestLabOrder(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(panel='panel-0', patient_id='patient_id-0', ordered_on=date(2024, 1, 1), fee=1250, state='ordered')
        self.assertTrue(record.id.startswith("LAB-"))
        self.assertEqual(bus.history[-1][0], "lab_order.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(panel='panel-0', patient_id='patient_id-0', ordered_on=date(2024, 1, 1), fee=1250, state='ordered')
        service.update(record.id, panel="changed")
        self.assertEqual(service.repository.get(record.id).panel, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(panel='panel-0', patient_id='patient_id-0', ordered_on=date(2024, 1, 1), fee=1250, state='ordered')
        service.create(panel='panel-1', patient_id='patient_id-1', ordered_on=date(2024, 2, 2), fee=2500, state='collected')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(panel='panel-0', patient_id='patient_id-0', ordered_on=date(2024, 1, 1), fee=1250, state='ordered')
        bad = dict(good, panel="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(panel='panel-0', patient_id='patient_id-0', ordered_on=date(2024, 1, 1), fee=1250, state='ordered')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["lab_order.created", "lab_order.archived", "lab_order.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(panel='panel-0', patient_id='patient_id-0', ordered_on=date(2024, 1, 1), fee=1250, state='ordered')
        self.assertEqual(len(service.search("panel-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
