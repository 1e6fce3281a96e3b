import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.return_note_repo import ReturnNoteRepository
from depot.serializers.return_note_csv import from_csv, to_csv
from depot.services.return_note_service import ReturnNoteService


def make_service():
    bus = EventBus()
    return ReturnNoteService(ReturnNoteRepository(), bus), bus


class TestReturnNote(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(reason='reason-0', order_id='order_id-0', received_on=date(2024, 1, 1), credit=1250, condition='resellable')
        self.assertTrue(record.id.startswith("RET-"))
        self.assertEqual(bus.history[-1][0], "return_note.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(reason='reason-0', order_id='order_id-0', received_on=date(2024, 1, 1), credit=1250, condition='resellable')
        service.update(record.id, reason="changed")
        self.assertEqual(service.repository.get(record.id).reason, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(reason='reason-0', order_id='order_id-0', received_on=date(2024, 1, 1), credit=1250, condition='resellable')
        service.create(reason='reason-1', order_id='order_id-1', received_on=date(2024, 2, 2), credit=2500, condition='damaged')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(reason='reason-0', order_id='order_id-0', received_on=date(2024, 1, 1), credit=1250, condition='resellable')
        bad = dict(good, reason="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(reason='reason-0', order_id='order_id-0', received_on=date(2024, 1, 1), credit=1250, condition='resellable')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["return_note.created", "return_note.archived", "return_note.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(reason='reason-0', order_id='order_id-0', received_on=date(2024, 1, 1), credit=1250, condition='resellable')
        self.assertEqual(len(service.search("reason-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
