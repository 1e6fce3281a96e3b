import signal
import unittest
from contextlib import contextmanager

from logscan.aggregate import peak_minute, per_minute, summarize
from logscan.parse import Request


class Slow(Exception):
    pass


@contextmanager
def deadline(seconds):
    """Fail (rather than hang) when the block runs longer than `seconds`."""

    def expired(signum, frame):
        raise Slow(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def stamp(i):
    # One request every ~0.6 s over a day, deterministic.
    second = (i * 6) // 10
    return f"01/May/2024:{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d} +0000"


def big_log(n=40_000):
    return [
        Request(ip=f"10.0.{i % 250}.{i % 7}", time=stamp(i), method="GET",
                path=f"/item/{i % 500}", status=503 if i % 50 == 0 else 200, size=100)
        for i in range(n)
    ]


class TestScale(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.requests = big_log()

    def test_per_minute_large_log_fast(self):
        with deadline(4):
            counts = per_minute(self.requests)
        self.assertEqual(len(counts), 400)
        self.assertEqual(sum(c for _, c in counts), 40_000)
        self.assertEqual(counts[0], ("2024-05-01 00:00", 100))

    def test_summarize_large_log_fast(self):
        with deadline(5):
            s = summarize(self.requests, top=3)
        self.assertEqual(s.requests, 40_000)
        self.assertEqual(s.peak_minute, ("2024-05-01 00:00", 100))
        self.assertAlmostEqual(s.error_rate, 0.02)


class TestUnchanged(unittest.TestCase):
    def test_minutes_in_utc_and_order(self):
        reqs = [Request("a", t, "GET", "/", 200, 1) for t in (
            "01/May/2024:12:01:59 +0200",
            "01/May/2024:10:00:30 +0000",
            "01/May/2024:10:01:00 +0000",
            "01/May/2024:10:01:30 +0000",
        )]
        self.assertEqual(per_minute(reqs), [("2024-05-01 10:00", 1), ("2024-05-01 10:01", 3)])

    def test_peak_ties_take_earliest(self):
        reqs = [Request("a", t, "GET", "/", 200, 1) for t in (
            "01/May/2024:10:05:00 +0000", "01/May/2024:10:02:00 +0000",
        )]
        self.assertEqual(peak_minute(reqs), ("2024-05-01 10:02", 1))
        self.assertIsNone(peak_minute([]))


if __name__ == "__main__":
    unittest.main()
