import signal
import unittest
from contextlib import contextmanager

from logscan.aggregate import summarize, top_paths, unique_ips
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


def big_log(n=150_000):
    # Deterministic: ~30k distinct IPs, ~3k distinct paths, 1 in 50 requests a 5xx.
    return [
        Request(
            ip=f"10.{(i * 7) % 120}.{(i * 13) % 250}.{i % 2}",
            time="01/May/2024:10:00:00 +0000",
            method="GET",
            path=f"/item/{(i * i) % 3001}",
            status=503 if i % 50 == 0 else 200,
            size=100,
        )
        for i in range(n)
    ]


class TestScale(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.requests = big_log()

    def test_summarize_large_log_fast(self):
        with deadline(4):
            s = summarize(self.requests, top=3)
        self.assertEqual(s.requests, 150_000)
        self.assertEqual(s.unique_visitors, len(set(r.ip for r in self.requests)))
        self.assertAlmostEqual(s.error_rate, 0.02)

    def test_top_paths_large_log_fast(self):
        with deadline(4):
            top = top_paths(self.requests, 5)
        counts = {}
        for r in self.requests:
            counts[r.path] = counts.get(r.path, 0) + 1
        expected = sorted(counts.items(), key=lambda pc: (-pc[1], pc[0]))[:5]
        self.assertEqual(top, expected)


class TestUnchanged(unittest.TestCase):
    def test_order_and_ties(self):
        reqs = [Request(ip, "t", "GET", p, 200, 1) for ip, p in
                [("b", "/z"), ("a", "/y"), ("b", "/x"), ("c", "/y"), ("a", "/z")]]
        self.assertEqual(unique_ips(reqs), ["b", "a", "c"])
        self.assertEqual(top_paths(reqs, 3), [("/y", 2), ("/z", 2), ("/x", 1)])

    def test_empty(self):
        s = summarize([])
        self.assertEqual((s.requests, s.unique_visitors, s.top_paths, s.error_rate),
                         (0, 0, [], 0.0))


if __name__ == "__main__":
    unittest.main()
