import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.practitioner_repo import PractitionerRepository
from clinic.serializers.practitioner_csv import from_csv, to_csv
from clinic.services.practitioner_service import PractitionerService


def make_service():
    bus = EventBus()
    return PractitionerService(PractitionerRepository(), bus), bus


class TestPractitioner(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(full_name='full_name-0', specialty='specialty-0', hourly_rate=1250, role='doctor')
        self.assertTrue(record.id.startswith("PRA-"))
        self.assertEqual(bus.history[-1][0], "practitioner.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(full_name='full_name-0', specialty='specialty-0', hourly_rate=1250, role='doctor')
        service.update(record.id, full_name="changed")
        self.assertEqual(service.repository.get(record.id).full_name, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(full_name='full_name-0', specialty='specialty-0', hourly_rate=1250, role='doctor')
        service.create(full_name='full_name-1', specialty='specialty-1', hourly_rate=2500, role='nurse')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(full_name='full_name-0', specialty='specialty-0', hourly_rate=1250, role='doctor')
        bad = dict(good, full_name="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(full_name='full_name-0', specialty='specialty-0', hourly_rate=1250, role='doctor')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["practitioner.created", "practitioner.archived", "practitioner.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(full_name='full_name-0', specialty='specialty-0', hourly_rate=1250, role='doctor')
        self.assertEqual(len(service.search("full_name-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
