import unittest

from timefmt.timesheet import Entry, TimesheetError, billable_hours, parse_timesheet, totals

SHEET = """1h30m  code review
45m    standup
# lunch is not billed

30m code review
"""


class TestTimesheet(unittest.TestCase):
    def test_parse(self):
        entries = parse_timesheet(SHEET)
        self.assertEqual(entries[0], Entry(5400, "code review"))
        self.assertEqual(len(entries), 3)

    def test_totals(self):
        self.assertEqual(totals(parse_timesheet(SHEET)), {"code review": 7200, "standup": 2700})

    def test_errors_name_the_line(self):
        with self.assertRaisesRegex(TimesheetError, "line 2: missing task"):
            parse_timesheet("1h work\n20m\n")
        with self.assertRaisesRegex(TimesheetError, "line 1: unknown unit"):
            parse_timesheet("3x work\n")

    def test_billable(self):
        self.assertEqual(billable_hours(50 * 60), 1.0)
        self.assertEqual(billable_hours(60 * 60), 1.0)
        self.assertEqual(billable_hours(61 * 60), 1.25)
