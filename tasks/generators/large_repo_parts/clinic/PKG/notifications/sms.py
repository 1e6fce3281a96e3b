"""Appointment reminders by SMS (the gateway itself is injected, so tests never send)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from ..models.appointment import Appointment
from ..models.patient import Patient
from ..scheduling.clock import to_hhmm
from ..scheduling.conflicts import holds_time

MAX_SMS = 160
Gateway = Callable[[str, str], bool]  # (patient id, text) -> delivered


@dataclass(frozen=True)
class ReminderResult:
    sent: tuple[str, ...]
    skipped: tuple[str, ...]  # no consent or not active
    failed: tuple[str, ...]


def reminder_text(a: Appointment, practice: str) -> str:
    text = (f"{practice}: reminder of your appointment on {a.day:%d/%m} at "
            f"{to_hhmm(a.start_minute)}. Reply C to cancel.")
    return text[:MAX_SMS]


def send_reminders(appointments: list[Appointment], patients: dict[str, Patient],
                   today: date, gateway: Gateway, practice: str = "PKG") -> ReminderResult:
    """Remind every patient with an appointment tomorrow who consented to SMS."""
    tomorrow = today + timedelta(days=1)
    sent, skipped, failed = [], [], []
    for a in sorted(appointments, key=lambda a: (a.start_minute, a.id)):
        if a.day != tomorrow or not holds_time(a):
            continue
        patient = patients.get(a.patient_id)
        if patient is None or not patient.is_active or not patient.consent_sms:
            skipped.append(a.id)
            continue
        (sent if gateway(patient.id, reminder_text(a, practice)) else failed).append(a.id)
    return ReminderResult(tuple(sent), tuple(skipped), tuple(failed))
