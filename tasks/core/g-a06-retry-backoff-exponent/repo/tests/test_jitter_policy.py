import unittest

from netretry.jitter import apply_jitter
from netretry.policy import PolicyError, RetryPolicy, policy_from_config


class TestJitter(unittest.TestCase):
    def test_none_is_identity(self):
        self.assertEqual(apply_jitter([1.0, 2.0], "none"), [1.0, 2.0])

    def test_full_within_bounds_and_seeded(self):
        waits = apply_jitter([4.0] * 20, "full", seed=7)
        self.assertTrue(all(0.0 <= w <= 4.0 for w in waits))
        self.assertEqual(waits, apply_jitter([4.0] * 20, "full", seed=7))

    def test_equal_at_least_half(self):
        self.assertTrue(all(2.0 <= w <= 4.0 for w in apply_jitter([4.0] * 20, "equal", seed=1)))

    def test_unknown(self):
        with self.assertRaisesRegex(ValueError, "choose one of none, full, equal"):
            apply_jitter([1.0], "wild")


class TestPolicy(unittest.TestCase):
    def test_defaults_and_values(self):
        self.assertEqual(policy_from_config({}), RetryPolicy())
        policy = policy_from_config({"attempts": 3, "base": 0.5, "jitter": "none"})
        self.assertEqual((policy.attempts, policy.base, policy.jitter), (3, 0.5, "none"))

    def test_errors_name_the_key(self):
        with self.assertRaisesRegex(PolicyError, "unknown retry setting"):
            policy_from_config({"attempt": 3})
        with self.assertRaisesRegex(PolicyError, "retry.base must be a number"):
            policy_from_config({"base": "fast"})
        with self.assertRaisesRegex(PolicyError, "retry.attempts must be a whole number"):
            policy_from_config({"attempts": 2.5})
        with self.assertRaisesRegex(PolicyError, "max_delay must be at least"):
            policy_from_config({"base": 10, "max_delay": 5})
