import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.prescription_repo import PrescriptionRepository
from clinic.serializers.prescription_csv import from_csv, to_csv
from clinic.services.prescription_service import PrescriptionService


def make_service():
    bus = EventBus()
    return PrescriptionService(PrescriptionRepository(), bus), bus


class TestPrescription(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(drug='drug-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), repeats=3, controlled=True)
        self.assertTrue(record.id.startswith("RX-"))
        self.assertEqual(bus.history[-1][0], "prescription.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(drug='drug-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), repeats=3, controlled=True)
        service.update(record.id, drug="changed")
        self.assertEqual(service.repository.get(record.id).drug, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(drug='drug-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), repeats=3, controlled=True)
        service.create(drug='drug-1', patient_id='patient_id-1', written_on=date(2024, 2, 2), repeats=4, controlled=False)
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(drug='drug-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), repeats=3, controlled=True)
        bad = dict(good, drug="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(drug='drug-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), repeats=3, controlled=True)
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["prescription.created", "prescription.archived", "prescription.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(drug='drug-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), repeats=3, controlled=True)
        self.assertEqual(len(service.search("drug-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
