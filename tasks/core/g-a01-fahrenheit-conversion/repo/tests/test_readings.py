import unittest

from thermo.readings import LogFormatError, Reading, by_day, parse_line, parse_log, station_name

LOG = """# station: north-field
2024-03-01T06:00, 4.5
2024-03-01T07:00, 5.25

2024-03-02T06:00, -1.0
"""


class TestReadings(unittest.TestCase):
    def test_parse_log(self):
        readings = parse_log(LOG)
        self.assertEqual(len(readings), 3)
        self.assertEqual(readings[0], Reading("2024-03-01T06:00", 4.5))
        self.assertEqual(readings[2].day, "2024-03-02")
        self.assertEqual(readings[1].hour, 7)

    def test_comments_and_blanks_skipped(self):
        self.assertIsNone(parse_line("   "))
        self.assertIsNone(parse_line("# a comment"))

    def test_bad_lines_name_the_line(self):
        with self.assertRaisesRegex(LogFormatError, "line 3"):
            parse_line("2024-03-01 06:00, 4.5", 3)
        with self.assertRaisesRegex(LogFormatError, "not a number"):
            parse_line("2024-03-01T06:00, warm")
        with self.assertRaisesRegex(LogFormatError, "absolute zero"):
            parse_line("2024-03-01T06:00, -300")
        with self.assertRaisesRegex(LogFormatError, "out of range"):
            parse_line("2024-03-01T25:00, 1")

    def test_station_name(self):
        self.assertEqual(station_name(LOG), "north-field")
        self.assertIsNone(station_name("2024-03-01T06:00, 1"))

    def test_by_day(self):
        self.assertEqual(by_day(parse_log(LOG)), {"2024-03-01": [4.5, 5.25], "2024-03-02": [-1.0]})
