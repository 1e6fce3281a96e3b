import random
import unittest
from datetime import date, timedelta

from clinic.models.appointment import Appointment
from clinic.models.patient import Patient
from clinic.recalls.planner import due_recalls, last_visits

TODAY = date(2024, 6, 1)


def patient(n, status="active"):
    return Patient(id=f"PAT-{n:06d}", full_name=f"Patient {n}", postcode="1234AB",
                   born_on=date(1970, 1, 1), insurer="public", consent_sms=True, status=status)


def visit(n, patient_n, day, state="done"):
    return Appointment(id=f"APT-{n:06d}", reason="check-up", patient_id=f"PAT-{patient_n:06d}",
                       practitioner_id="PRA-000001", day=day, start_minute=540,
                       duration_min=15, state=state)


class TestScale(unittest.TestCase):
    def test_merged_practices(self):
        rng = random.Random(20240601)  # seeded: the same data on every run
        patients = [patient(n) for n in range(1, 20001)]
        visits = [visit(n, rng.randint(1, 20000), TODAY - timedelta(days=rng.randint(1, 900)))
                  for n in range(1, 60001)]
        due = due_recalls(patients, visits, TODAY)
        latest = last_visits(visits)
        expected = sorted(p for p, day in latest.items() if day <= TODAY - timedelta(days=365))
        self.assertEqual(due, expected)


class TestRules(unittest.TestCase):
    def test_due_after_interval(self):
        visits = [visit(1, 1, TODAY - timedelta(days=365)), visit(2, 2, TODAY - timedelta(days=364))]
        self.assertEqual(due_recalls([patient(1), patient(2)], visits, TODAY), ["PAT-000001"])

    def test_only_done_visits_count(self):
        visits = [visit(1, 1, TODAY - timedelta(days=500)),
                  visit(2, 1, TODAY - timedelta(days=10), state="cancelled")]
        self.assertEqual(due_recalls([patient(1)], visits, TODAY), ["PAT-000001"])

    def test_inactive_and_new_patients_skipped(self):
        visits = [visit(1, 1, TODAY - timedelta(days=800))]
        self.assertEqual(due_recalls([patient(1, "archived"), patient(2)], visits, TODAY), [])

    def test_last_visits(self):
        visits = [visit(1, 1, date(2023, 1, 1)), visit(2, 1, date(2023, 5, 1))]
        self.assertEqual(last_visits(visits), {"PAT-000001": date(2023, 5, 1)})
