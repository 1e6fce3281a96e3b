"""Free start times for a practitioner."""

from __future__ import annotations

from datetime import date

from ..models.appointment import Appointment
from ..models.shift import Shift
from .clock import grid_from
from .conflicts import holds_time, span
from .intervals import subtract


def free_slots(practitioner_id: str, day: date, duration: int, shifts: list[Shift],
               appointments: list[Appointment]) -> list[int]:
    """Grid start times at which an appointment of `duration` minutes fits."""
    taken = [span(a) for a in appointments
             if a.practitioner_id == practitioner_id and a.day == day and holds_time(a)]
    starts: list[int] = []
    for shift in shifts:
        if shift.practitioner_id != practitioner_id or shift.day != day or not shift.is_active:
            continue
        for free_start, free_end in subtract((shift.start_minute, shift.end_minute), taken):
            starts += [t for t in grid_from(free_start, free_end) if t + duration <= free_end]
    return sorted(set(starts))
