import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.vaccination_repo import VaccinationRepository
from clinic.serializers.vaccination_csv import from_csv, to_csv
from clinic.services.vaccination_service import VaccinationService


def make_service():
    bus = EventBus()
    return VaccinationService(VaccinationRepository(), bus), bus


class TestVaccination(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(vaccine='vaccine-0', patient_id='patient_id-0', given_on=date(2024, 1, 1), dose=3)
        self.assertTrue(record.id.startswith("VAC-"))
        self.assertEqual(bus.history[-1][0], "vaccination.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(vaccine='vaccine-0', patient_id='patient_id-0', given_on=date(2024, 1, 1), dose=3)
        service.update(record.id, vaccine="changed")
        self.assertEqual(service.repository.get(record.id).vaccine, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(vaccine='vaccine-0', patient_id='patient_id-0', given_on=date(2024, 1, 1), dose=3)
        service.create(vaccine='vaccine-1', patient_id='patient_id-1', given_on=date(2024, 2, 2), dose=4)
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(vaccine='vaccine-0', patient_id='patient_id-0', given_on=date(2024, 1, 1), dose=3)
        bad = dict(good, vaccine="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(vaccine='vaccine-0', patient_id='patient_id-0', given_on=date(2024, 1, 1), dose=3)
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["vaccination.created", "vaccination.archived", "vaccination.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(vaccine='vaccine-0', patient_id='patient_id-0', given_on=date(2024, 1, 1), dose=3)
        self.assertEqual(len(service.search("vaccine-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
