import unittest

from logtools.dedupe import dedupe

# Deterministic synthetic logs: every line distinct, so a list-based "seen" is quadratic.
N = 200_000


def distinct_lines(n):
    return [f"2024-05-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d} INFO job {i}"
            for i in range(n)]


class TestScale(unittest.TestCase):
    def test_many_distinct_lines(self):
        lines = distinct_lines(N)
        out = dedupe(lines + lines[:1000])
        self.assertEqual(len(out), N)
        self.assertEqual(out[-1], lines[-1])

    def test_many_distinct_lines_ignoring_timestamps(self):
        lines = distinct_lines(N)
        out = dedupe(lines, ignore_timestamps=True)
        self.assertEqual(len(out), N)


class TestResults(unittest.TestCase):
    def test_order_of_first_appearance(self):
        self.assertEqual(dedupe(["c", "a", "c", "b", "a"]), ["c", "a", "b"])

    def test_ignore_timestamps_keeps_first_line(self):
        lines = ["2024-01-01T00:00:01 WARNING disk", "2024-01-02T10:00:00 WARNING disk", "x"]
        self.assertEqual(dedupe(lines, ignore_timestamps=True), [lines[0], "x"])

    def test_unhashable_free_input(self):
        self.assertEqual(dedupe([]), [])
