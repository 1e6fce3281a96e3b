import unittest

from logtools.records import Record, at_least, parse_record, untimed

LINES = [
    "2024-05-01T12:00:00 INFO [web] started",
    "2024-05-01T12:00:01 ERROR [worker-2] job 7 failed",
    "Traceback (most recent call last):",
    "2024-05-01T12:00:02 WARNING disk 91% full",
    "plain line",
]


class TestRecords(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_record(LINES[1]),
                         Record("2024-05-01T12:00:01", "ERROR", "worker-2", "job 7 failed"))
        self.assertEqual(parse_record("plain line"), Record(None, None, None, "plain line"))
        self.assertEqual(parse_record(LINES[3]).source, None)

    def test_at_least(self):
        self.assertEqual(at_least(LINES, "warning"), [LINES[1], LINES[3]])
        with self.assertRaisesRegex(ValueError, "unknown level"):
            at_least(LINES, "LOUD")

    def test_untimed(self):
        self.assertEqual(untimed(LINES), [LINES[2], LINES[4]])
