"""BookingDesk: book, move and cancel appointments with every rule checked."""

from __future__ import annotations

from datetime import date

from ..core.errors import ValidationError
from ..models.appointment import Appointment
from ..repositories.shift_repo import ShiftRepository
from ..services.appointment_service import AppointmentService
from .clock import on_grid, to_hhmm
from .conflicts import clashing, span, within_shift


class BookingDesk:
    def __init__(self, appointments: AppointmentService, shifts: ShiftRepository) -> None:
        self.appointments = appointments
        self.shifts = shifts

    def _check(self, practitioner_id: str, day: date, start: int, duration: int,
               ignore_id: str | None = None) -> None:
        if duration < 5 or duration > 240:
            raise ValidationError("an appointment lasts between 5 and 240 minutes")
        if not on_grid(start):
            raise ValidationError(f"{to_hhmm(start)} is not on the 15-minute grid")
        proposed = (start, start + duration)
        shifts = self.shifts.find_by_practitioner_id(practitioner_id)
        if not within_shift(proposed, day, shifts):
            raise ValidationError(
                f"{practitioner_id} has no shift covering {to_hhmm(start)}-"
                f"{to_hhmm(start + duration)} on {day.isoformat()}"
            )
        existing = self.appointments.repository.find_by_practitioner_id(practitioner_id)
        clash = clashing(proposed, day, existing, ignore_id)
        if clash:
            first = clash[0]
            start_text, end_text = (to_hhmm(m) for m in span(first))
            raise ValidationError(
                f"{practitioner_id} is already booked {start_text}-{end_text} ({first.id})"
            )

    def book(self, patient_id: str, practitioner_id: str, day: date, start: int,
             duration: int, reason: str) -> Appointment:
        self._check(practitioner_id, day, start, duration)
        return self.appointments.create(
            reason=reason, patient_id=patient_id, practitioner_id=practitioner_id, day=day,
            start_minute=start, duration_min=duration, state="booked",
        )

    def move(self, appointment_id: str, day: date, start: int) -> Appointment:
        current = self.appointments.repository.get(appointment_id)
        self._check(current.practitioner_id, day, start, current.duration_min, appointment_id)
        return self.appointments.update(appointment_id, day=day, start_minute=start)

    def cancel(self, appointment_id: str) -> Appointment:
        return self.appointments.update(appointment_id, state="cancelled")
