import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.appointment_repo import AppointmentRepository
from clinic.serializers.appointment_csv import from_csv, to_csv
from clinic.services.appointment_service import AppointmentService


def make_service():
    bus = EventBus()
    return AppointmentService(AppointmentRepository(), bus), bus


class TestAppointment(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(reason='reason-0', patient_id='patient_id-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, duration_min=3, state='booked')
        self.assertTrue(record.id.startswith("APT-"))
        self.assertEqual(bus.history[-1][0], "appointment.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(reason='reason-0', patient_id='patient_id-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, duration_min=3, state='booked')
        service.update(record.id, reason="changed")
        self.assertEqual(service.repository.get(record.id).reason, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(reason='reason-0', patient_id='patient_id-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, duration_min=3, state='booked')
        service.create(reason='reason-1', patient_id='patient_id-1', practitioner_id='practitioner_id-1', day=date(2024, 2, 2), start_minute=4, duration_min=4, state='arrived')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(reason='reason-0', patient_id='patient_id-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, duration_min=3, state='booked')
        bad = dict(good, reason="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(reason='reason-0', patient_id='patient_id-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, duration_min=3, state='booked')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["appointment.created", "appointment.archived", "appointment.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(reason='reason-0', patient_id='patient_id-0', practitioner_id='practitioner_id-0', day=date(2024, 1, 1), start_minute=3, duration_min=3, state='booked')
        self.assertEqual(len(service.search("reason-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
