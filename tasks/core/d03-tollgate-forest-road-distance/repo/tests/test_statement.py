import unittest

from tollgate.statement import Trip, charge_month, statement_lines
from tollgate.tariffs import edition_for


class TestStatement(unittest.TestCase):
    def test_editions_by_day(self):
        self.assertEqual(edition_for("2025-12-31"), 2025)
        self.assertEqual(edition_for("2026-01-01"), 2026)

    def test_trips_in_date_order_with_a_total(self):
        trips = [Trip("2026-01-05", 9, "A1-01", "A1-04"),
                 Trip("2026-01-02", 9, "A1-01", "A1-04")]
        lines = statement_lines(trips)
        self.assertTrue(lines[0].startswith("2026-01-02"))
        self.assertEqual(lines[-1], "total 3.60")

    def test_a_2025_trip_uses_the_2025_edition(self):
        (_, old), (_, new) = charge_month([Trip("2025-12-31", 9, "A1-01", "A1-06"),
                                           Trip("2026-01-01", 9, "A1-01", "A1-06")])
        self.assertLessEqual(old, new)
