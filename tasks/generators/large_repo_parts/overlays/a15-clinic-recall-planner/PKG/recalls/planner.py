"""Which patients are due a recall: no visit within the interval since their last one."""

from __future__ import annotations

from datetime import date, timedelta

from ..models.appointment import Appointment
from ..models.patient import Patient


def last_visits(appointments: list[Appointment]) -> dict[str, date]:
    """The day of each patient's latest completed appointment."""
    latest: dict[str, date] = {}
    for a in appointments:
        if a.state == "done" and (a.patient_id not in latest or a.day > latest[a.patient_id]):
            latest[a.patient_id] = a.day
    return latest


def _visits_of(patient: Patient, appointments: list[Appointment]) -> list[date]:
    return [a.day for a in appointments if a.patient_id == patient.id and a.state == "done"]


def due_recalls(patients: list[Patient], appointments: list[Appointment], today: date,
                interval_days: int = 365) -> list[str]:
    """Ids of active patients whose last completed visit is interval_days or more ago.

    Patients who never had a completed visit are not recalled (they are new registrations).
    """
    cutoff = today - timedelta(days=interval_days)
    due = []
    for patient in patients:
        if not patient.is_active:
            continue
        days = _visits_of(patient, appointments)
        if days and max(days) <= cutoff:
            due.append(patient.id)
    return sorted(due)
