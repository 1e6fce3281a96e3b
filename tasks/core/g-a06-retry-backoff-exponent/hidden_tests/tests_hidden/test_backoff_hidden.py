import unittest

from netretry.backoff import delays
from netretry.retry import GaveUp, retry


class TestDelays(unittest.TestCase):
    def test_doubles(self):
        self.assertEqual(delays(5, base=1), [1, 2, 4, 8, 16])
        self.assertEqual(delays(3, base=0.5), [0.5, 1.0, 2.0])

    def test_cap(self):
        self.assertEqual(delays(6, base=1, max_delay=10), [1, 2, 4, 8, 10, 10])

    def test_zero_attempts(self):
        self.assertEqual(delays(0), [])


class TestRetry(unittest.TestCase):
    def test_sleeps_follow_delays(self):
        calls = []
        slept = []

        def flaky():
            calls.append(1)
            if len(calls) < 4:
                raise OSError("try again")
            return "ok"

        self.assertEqual(retry(flaky, attempts=5, base=2, sleep=slept.append), "ok")
        self.assertEqual(slept, [2, 4, 8])

    def test_gives_up(self):
        def boom():
            raise OSError("down")
        with self.assertRaises(GaveUp):
            retry(boom, attempts=2)
