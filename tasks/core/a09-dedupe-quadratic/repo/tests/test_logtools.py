import unittest

from logtools.dedupe import dedupe
from logtools.levels import level_counts


class TestLogtools(unittest.TestCase):
    def test_dedupe(self):
        self.assertEqual(dedupe(["a", "b", "a", "c", "b"]), ["a", "b", "c"])

    def test_dedupe_timestamps(self):
        lines = ["2024-01-01T00:00:00 INFO up", "2024-01-01T00:00:05 INFO up"]
        self.assertEqual(dedupe(lines, ignore_timestamps=True), lines[:1])

    def test_levels(self):
        self.assertEqual(level_counts(["x INFO a", "ERROR b", "c"])["OTHER"], 1)
