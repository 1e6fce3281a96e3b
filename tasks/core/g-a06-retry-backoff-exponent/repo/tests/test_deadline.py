import unittest

from netretry.deadline import Deadline


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class TestDeadline(unittest.TestCase):
    def test_budget_runs_out(self):
        clock = FakeClock()
        deadline = Deadline(10, clock)
        clock.now += 4
        self.assertEqual(deadline.remaining(), 6.0)
        self.assertEqual(deadline.clamp(8.0), 6.0)
        self.assertFalse(deadline.expired())
        clock.now += 7
        self.assertTrue(deadline.expired())

    def test_bad_budget(self):
        with self.assertRaises(ValueError):
            Deadline(0, FakeClock())
