import unittest
from datetime import date

from clinic.core.events import EventBus
from clinic.repositories.lab_result_repo import LabResultRepository
from clinic.serializers.lab_result_csv import from_csv, to_csv
from clinic.services.lab_result_service import LabResultService


def make_service():
    bus = EventBus()
    return LabResultService(LabResultRepository(), bus), bus


class TestLabResult(unittest.TestCase):
    def test_create_publishes(self):
        service, bus = make_service()
        record = service.create(analyte='analyte-0', lab_order_id='lab_order_id-0', resulted_on=date(2024, 1, 1), value_milli=3, flag='normal')
        self.assertTrue(record.id.startswith("RES-"))
        self.assertEqual(bus.history[-1][0], "lab_result.created")

    def test_update_and_archive(self):
        service, _ = make_service()
        record = service.create(analyte='analyte-0', lab_order_id='lab_order_id-0', resulted_on=date(2024, 1, 1), value_milli=3, flag='normal')
        service.update(record.id, analyte="changed")
        self.assertEqual(service.repository.get(record.id).analyte, "changed")
        service.archive(record.id)
        self.assertEqual(service.repository.active(), [])

    def test_csv_round_trip(self):
        service, _ = make_service()
        service.create(analyte='analyte-0', lab_order_id='lab_order_id-0', resulted_on=date(2024, 1, 1), value_milli=3, flag='normal')
        service.create(analyte='analyte-1', lab_order_id='lab_order_id-1', resulted_on=date(2024, 2, 2), value_milli=4, flag='low')
        text = to_csv(service.repository.all())
        self.assertEqual(
            [r.to_dict() for r in from_csv(text)],
            [r.to_dict() for r in service.repository.all()],
        )

    def test_bulk_create_collects_problems(self):
        service, _ = make_service()
        good = dict(analyte='analyte-0', lab_order_id='lab_order_id-0', resulted_on=date(2024, 1, 1), value_milli=3, flag='normal')
        bad = dict(good, analyte="")
        created, problems = service.bulk_create([good, bad, good])
        self.assertEqual(len(created), 2)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("row 2:"))

    def test_history_and_restore(self):
        service, _ = make_service()
        record = service.create(analyte='analyte-0', lab_order_id='lab_order_id-0', resulted_on=date(2024, 1, 1), value_milli=3, flag='normal')
        service.archive(record.id)
        service.restore(record.id)
        self.assertEqual(
            service.history(record.id),
            ["lab_result.created", "lab_result.archived", "lab_result.restored"],
        )
        self.assertEqual(service.stats(), {"total": 1, "active": 1, "archived": 0})

    def test_search(self):
        service, _ = make_service()
        service.create(analyte='analyte-0', lab_order_id='lab_order_id-0', resulted_on=date(2024, 1, 1), value_milli=3, flag='normal')
        self.assertEqual(len(service.search("analyte-0")), 1)
        self.assertEqual(service.search("nothing-like-this"), [])
