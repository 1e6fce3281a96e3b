import unittest
from datetime import date

from depot.core.events import EventBus
from depot.repositories.invoice_repo import InvoiceRepository
from depot.serializers.invoice_csv import from_csv, to_csv
from depot.services.invoice_service import InvoiceService


def make_service():
    bus = EventBus()
    return InvoiceService(InvoiceRepository(), bus), bus


class TestInvoice(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(number='number-0', customer_id='customer_id-0', issued_on=date(2024, 1, 1), total=1250, state='draft')
        self.assertTrue(record.id.startswith("INV-"))
        self.assertEqual(bus.history[-1][0], "invoice.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(number='number-0', customer_id='customer_id-0', issued_on=date(2024, 1, 1), total=1250, state='draft')
        service.update(record.id, number="changed")
        self.assertEqual(service.repository.get(record.id).number, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(number='number-0', customer_id='customer_id-0', issued_on=date(2024, 1, 1), total=1250, state='draft')
        service.create(number='number-1', customer_id='customer_id-1', issued_on=date(2024, 2, 2), total=2500, state='sent')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(number='number-0', customer_id='customer_id-0', issued_on=date(2024, 1, 1), total=1250, state='draft')
        bad = dict(good, number="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(number='number-0', customer_id='customer_id-0', issued_on=date(2024, 1, 1), total=1250, state='draft')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["invoice.created", "invoice.archived", "invoice.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(number='number-0', customer_id='customer_id-0', issued_on=date(2024, 1, 1), total=1250, state='draft')
        self.assertEqual(len(service.search("number-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
