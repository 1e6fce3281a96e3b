import unittest
from datetime import date

from PKG.core.events import EventBus
from PKG.models.shift import Shift
from PKG.repositories.appointment_repo import AppointmentRepository
from PKG.repositories.shift_repo import ShiftRepository
from PKG.scheduling.booking import BookingDesk
from PKG.scheduling.clock import to_hhmm, to_minutes
from PKG.scheduling.intervals import merge, subtract
from PKG.services.appointment_service import AppointmentService

DAY = date(2024, 6, 3)


def desk():
    shifts = ShiftRepository([Shift(id="SFT-000001", title="Monday morning",
                                    practitioner_id="PRA-000001", day=DAY,
                                    start_minute=to_minutes("08:00"),
                                    end_minute=to_minutes("12:00"))])
    return BookingDesk(AppointmentService(AppointmentRepository(), EventBus()), shifts)


class TestClock(unittest.TestCase):
    def test_round_trip(self):
        self.assertEqual(to_hhmm(to_minutes("09:45")), "09:45")


class TestIntervals(unittest.TestCase):
    def test_merge(self):
        self.assertEqual(merge([(5, 8), (0, 3), (2, 4)]), [(0, 4), (5, 8)])

    def test_subtract(self):
        self.assertEqual(subtract((0, 10), [(2, 4), (6, 7)]), [(0, 2), (4, 6), (7, 10)])


class TestBooking(unittest.TestCase):
    def test_book_inside_shift(self):
        a = desk().book("PAT-000001", "PRA-000001", DAY, to_minutes("09:00"), 30, "check-up")
        self.assertEqual(a.state, "booked")

    def test_double_booking_rejected(self):
        d = desk()
        d.book("PAT-000001", "PRA-000001", DAY, to_minutes("09:00"), 30, "check-up")
        with self.assertRaises(ValueError):
            d.book("PAT-000002", "PRA-000001", DAY, to_minutes("09:15"), 30, "flu")

    def test_back_to_back_bookings(self):
        d = desk()
        d.book("PAT-000001", "PRA-000001", DAY, to_minutes("09:00"), 30, "check-up")
        second = d.book("PAT-000002", "PRA-000001", DAY, to_minutes("09:30"), 30, "flu")
        self.assertEqual(to_hhmm(second.start_minute), "09:30")

    def test_outside_shift_rejected(self):
        with self.assertRaises(ValueError):
            desk().book("PAT-000001", "PRA-000001", DAY, to_minutes("11:45"), 30, "late")
