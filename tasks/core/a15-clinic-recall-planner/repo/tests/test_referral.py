import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.referral_repo import ReferralRepository
from clinic.serializers.referral_csv import from_csv, to_csv
from clinic.services.referral_service import ReferralService


def make_service():
    bus = EventBus()
    return ReferralService(ReferralRepository(), bus), bus


class TestReferral(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(reason='reason-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), urgency='routine')
        self.assertTrue(record.id.startswith("REF-"))
        self.assertEqual(bus.history[-1][0], "referral.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(reason='reason-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), urgency='routine')
        service.update(record.id, reason="changed")
        self.assertEqual(service.repository.get(record.id).reason, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(reason='reason-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), urgency='routine')
        service.create(reason='reason-1', patient_id='patient_id-1', written_on=date(2024, 2, 2), urgency='soon')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(reason='reason-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), urgency='routine')
        bad = dict(good, reason="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(reason='reason-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), urgency='routine')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["referral.created", "referral.archived", "referral.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(reason='reason-0', patient_id='patient_id-0', written_on=date(2024, 1, 1), urgency='routine')
        self.assertEqual(len(service.search("reason-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
