"""The printed day sheet a practitioner gets each morning."""

from __future__ import annotations

from datetime import date

from ..models.appointment import Appointment
from ..models.patient import Patient
from ..scheduling.clock import to_hhmm
from ..scheduling.conflicts import holds_time

STATE_MARK = {"booked": " ", "arrived": "A", "done": "D", "cancelled": "X", "no_show": "N"}


def _age(born: date, on: date) -> int:
    years = on.year - born.year
    return years - ((on.month, on.day) < (born.month, born.day))


def day_sheet(practitioner_name: str, day: date, appointments: list[Appointment],
              patients: dict[str, Patient]) -> list[str]:
    """Heading, one line per appointment in time order, and a footer with counts."""
    lines = [f"{practitioner_name} - {day:%A %d %B %Y}", ""]
    todays = sorted((a for a in appointments if a.day == day), key=lambda a: a.start_minute)
    for a in todays:
        patient = patients.get(a.patient_id)
        who = f"{patient.full_name} ({_age(patient.born_on, day)})" if patient else a.patient_id
        end = to_hhmm(a.start_minute + a.duration_min)
        mark = STATE_MARK.get(a.state, "?")
        lines.append(f"[{mark}] {to_hhmm(a.start_minute)}-{end}  {who:<32} {a.reason}")
    held = sum(1 for a in todays if holds_time(a))
    minutes = sum(a.duration_min for a in todays if holds_time(a))
    lines += ["", f"{held} appointment(s), {minutes // 60} h {minutes % 60:02d} min booked"]
    return lines
