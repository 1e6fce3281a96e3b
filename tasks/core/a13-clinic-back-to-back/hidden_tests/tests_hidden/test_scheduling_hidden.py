import unittest
from datetime import date

from clinic.core.errors import ValidationError
from clinic.core.events import EventBus
from clinic.models.shift import Shift
from clinic.repositories.appointment_repo import AppointmentRepository
from clinic.repositories.shift_repo import ShiftRepository
from clinic.scheduling.booking import BookingDesk
from clinic.scheduling.clock import to_minutes
from clinic.scheduling.ical import calendar
from clinic.scheduling.intervals import overlaps
from clinic.scheduling.slots import free_slots
from clinic.services.appointment_service import AppointmentService

DAY = date(2024, 6, 4)
PRA = "PRA-000009"


def desk():
    shift = Shift(id="SFT-000003", title="Tuesday", practitioner_id=PRA, day=DAY,
                  start_minute=to_minutes("13:00"), end_minute=to_minutes("17:00"))
    return BookingDesk(AppointmentService(AppointmentRepository(), EventBus()),
                       ShiftRepository([shift]))


class TestIntervals(unittest.TestCase):
    def test_touching_intervals_do_not_overlap(self):
        self.assertFalse(overlaps((540, 570), (570, 600)))
        self.assertFalse(overlaps((570, 600), (540, 570)))

    def test_overlap(self):
        self.assertTrue(overlaps((540, 571), (570, 600)))
        self.assertTrue(overlaps((540, 600), (550, 560)))
        self.assertFalse(overlaps((0, 10), (20, 30)))


class TestBooking(unittest.TestCase):
    def test_back_to_back(self):
        d = desk()
        d.book("PAT-000001", PRA, DAY, to_minutes("13:00"), 45, "a")
        d.book("PAT-000002", PRA, DAY, to_minutes("13:45"), 15, "b")
        d.book("PAT-000003", PRA, DAY, to_minutes("14:00"), 30, "c")
        self.assertEqual(len(d.appointments.repository), 3)

    def test_move_to_adjacent_slot(self):
        d = desk()
        d.book("PAT-000001", PRA, DAY, to_minutes("14:00"), 30, "a")
        b = d.book("PAT-000002", PRA, DAY, to_minutes("15:00"), 30, "b")
        moved = d.move(b.id, DAY, to_minutes("14:30"))
        self.assertEqual(moved.start_minute, to_minutes("14:30"))

    def test_real_overlap_rejected(self):
        d = desk()
        d.book("PAT-000001", PRA, DAY, to_minutes("14:00"), 30, "a")
        with self.assertRaises(ValidationError):
            d.book("PAT-000002", PRA, DAY, to_minutes("14:15"), 30, "b")

    def test_cancelled_frees_time(self):
        d = desk()
        a = d.book("PAT-000001", PRA, DAY, to_minutes("14:00"), 30, "a")
        d.cancel(a.id)
        d.book("PAT-000002", PRA, DAY, to_minutes("14:00"), 30, "b")


class TestSlots(unittest.TestCase):
    def test_free_slots_around_booking(self):
        d = desk()
        d.book("PAT-000001", PRA, DAY, to_minutes("13:30"), 60, "a")
        starts = free_slots(PRA, DAY, 30, d.shifts.all(), d.appointments.repository.all())
        self.assertEqual(starts[:3], [to_minutes("13:00"), to_minutes("14:30"),
                                      to_minutes("14:45")])


class TestOther(unittest.TestCase):
    def test_ical_feed(self):
        d = desk()
        d.book("PAT-000001", PRA, DAY, to_minutes("13:30"), 60, "check, up")
        text = calendar(d.appointments.repository.all())
        self.assertIn("DTSTART:20240604T133000\r\n", text)
        self.assertIn("SUMMARY:check\\, up\r\n", text)
