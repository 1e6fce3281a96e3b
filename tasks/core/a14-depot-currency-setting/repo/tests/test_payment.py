import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.payment_repo import PaymentRepository
from depot.serializers.payment_csv import from_csv, to_csv
from depot.services.payment_service import PaymentService


def make_service():
    bus = EventBus()
    return PaymentService(PaymentRepository(), bus), bus


class TestPayment(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(reference='reference-0', invoice_id='invoice_id-0', received_on=date(2024, 1, 1), amount=1250, method='transfer')
        self.assertTrue(record.id.startswith("PAY-"))
        self.assertEqual(bus.history[-1][0], "payment.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(reference='reference-0', invoice_id='invoice_id-0', received_on=date(2024, 1, 1), amount=1250, method='transfer')
        service.update(record.id, reference="changed")
        self.assertEqual(service.repository.get(record.id).reference, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(reference='reference-0', invoice_id='invoice_id-0', received_on=date(2024, 1, 1), amount=1250, method='transfer')
        service.create(reference='reference-1', invoice_id='invoice_id-1', received_on=date(2024, 2, 2), amount=2500, method='card')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(reference='reference-0', invoice_id='invoice_id-0', received_on=date(2024, 1, 1), amount=1250, method='transfer')
        bad = dict(good, reference="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(reference='reference-0', invoice_id='invoice_id-0', received_on=date(2024, 1, 1), amount=1250, method='transfer')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["payment.created", "payment.archived", "payment.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(reference='reference-0', invoice_id='invoice_id-0', received_on=date(2024, 1, 1), amount=1250, method='transfer')
        self.assertEqual(len(service.search("reference-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
