import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.shift_repo import ShiftRepository
from clinic.serializers.shift_csv import from_csv, to_csv
from clinic.services.shift_service import ShiftService


def make_service():
    bus = EventBus()
    return ShiftService(ShiftRepository(), bus), bus


class TestShift(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(title='title-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, end_minute=3)
        self.assertTrue(record.id.startswith("SFT-"))
        self.assertEqual(bus.history[-1][0], "shift.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(title='title-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, end_minute=3)
        service.update(record.id, title="changed")
        self.assertEqual(service.repository.get(record.id).title, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(title='title-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, end_minute=3)
        service.create(title='title-1', practitioner_id='practitioner_id-1', day=date(2024, 2, 2), start_minute=4, end_minute=4)
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(title='title-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, end_minute=3)
        bad = dict(good, title="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(title='title-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, end_minute=3)
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["shift.created", "shift.archived", "shift.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(title='title-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, end_minute=3)
        self.assertEqual(len(service.search("title-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
