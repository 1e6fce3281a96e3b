import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.patient_repo import PatientRepository
from clinic.serializers.patient_csv import from_csv, to_csv
from clinic.services.patient_service import PatientService


def make_service():
    bus = EventBus()
    return PatientService(PatientRepository(), bus), bus


class TestPatient(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(full_name='full_name-0', postcode='postcode-0', born_on=date(2024, 1, 1), insurer='public', consent_sms=True)
        self.assertTrue(record.id.startswith("PAT-"))
        self.assertEqual(bus.history[-1][0], "patient.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(full_name='full_name-0', postcode='postcode-0', born_on=date(2024, 1, 1), insurer='public', consent_sms=True)
        service.update(record.id, full_name="changed")
        self.assertEqual(service.repository.get(record.id).full_name, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(full_name='full_name-0', postcode='postcode-0', born_on=date(2024, 1, 1), insurer='public', consent_sms=True)
        service.create(full_name='full_name-1', postcode='postcode-1', born_on=date(2024, 2, 2), insurer='private', consent_sms=False)
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(full_name='full_name-0', postcode='postcode-0', born_on=date(2024, 1, 1), insurer='public', consent_sms=True)
        bad = dict(good, full_name="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(full_name='full_name-0', postcode='postcode-0', born_on=date(2024, 1, 1), insurer='public', consent_sms=True)
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["patient.created", "patient.archived", "patient.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(full_name='full_name-0', postcode='postcode-0', born_on=date(2024, 1, 1), insurer='public', consent_sms=True)
        self.assertEqual(len(service.search("full_name-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
