import unittest

from logtools.redact import redact, redact_lines
from logtools.window import in_window, line_time


class TestRedact(unittest.TestCase):
    def test_all_kinds(self):
        line = "login bob.smith+x@example.co.uk from 192.168.0.12 card 4111111111111111"
        self.assertEqual(redact(line), "login <email> from <ip> card <number>")

    def test_selected_kinds(self):
        self.assertEqual(redact("a@b.io 10.0.0.1", ("ip",)), "a@b.io <ip>")
        self.assertEqual(redact_lines(["port 8080"]), ["port 8080"])
        with self.assertRaises(ValueError):
            redact("x", ("phone",))


class TestWindow(unittest.TestCase):
    lines = [
        "2024-05-01T11:59:59 INFO a",
        "2024-05-01T12:00:00 ERROR b",
        "  at frame 1",
        "2024-05-01T13:00:00 INFO c",
        "2024-05-02T00:00:00 INFO d",
    ]

    def test_line_time(self):
        self.assertEqual(line_time(self.lines[0]), "2024-05-01T11:59:59")
        self.assertIsNone(line_time(self.lines[2]))

    def test_window_keeps_continuations(self):
        self.assertEqual(in_window(self.lines, "2024-05-01T12", "2024-05-01T13"),
                         self.lines[1:3])

    def test_day_prefix(self):
        self.assertEqual(in_window(self.lines, start="2024-05-02"), self.lines[4:])
        with self.assertRaises(ValueError):
            in_window(self.lines, start="May 1")
