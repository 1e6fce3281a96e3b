"""What clashes with a proposed appointment."""

from __future__ import annotations

from ..models.appointment import Appointment
from ..models.shift import Shift
from .intervals import Interval, contains, overlaps

# Appointments in these states no longer hold their time.
INACTIVE_STATES = ("cancelled", "no_show")


def span(appointment: Appointment) -> Interval:
    return (appointment.start_minute, appointment.start_minute + appointment.duration_min)


def holds_time(appointment: Appointment) -> bool:
    return appointment.is_active and appointment.state not in INACTIVE_STATES


def clashing(proposed: Interval, day, existing: list[Appointment],
             ignore_id: str | None = None) -> list[Appointment]:
    """Existing appointments on the same day whose time overlaps the proposed interval."""
    return [
        a for a in existing
        if a.day == day and a.id != ignore_id and holds_time(a) and overlaps(span(a), proposed)
    ]


def within_shift(proposed: Interval, day, shifts: list[Shift]) -> bool:
    """True when one of the shifts on that day covers the whole proposed interval."""
    return any(
        s.day == day and s.is_active and contains((s.start_minute, s.end_minute), proposed)
        for s in shifts
    )
