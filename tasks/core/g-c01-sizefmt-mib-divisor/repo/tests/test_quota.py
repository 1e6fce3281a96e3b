import unittest

from sizefmt.quota import Quota
from sizefmt.units import to_kib


class TestQuota(unittest.TestCase):
    def test_remaining_and_percent(self):
        quota = Quota(limit_bytes=4096, used_bytes=1024)
        self.assertEqual(quota.remaining, 3072)
        self.assertEqual(quota.percent_used, 25.0)
        self.assertFalse(quota.over_limit())

    def test_add_and_over_limit(self):
        quota = Quota(limit_bytes=1000).add(1500)
        self.assertTrue(quota.over_limit())
        self.assertEqual(quota.remaining, 0)

    def test_summary(self):
        self.assertEqual(Quota(2048, 1024).summary(), "1.0 KiB of 2.0 KiB (50.0%)")

    def test_invalid(self):
        with self.assertRaises(ValueError):
            Quota(limit_bytes=0)


class TestKib(unittest.TestCase):
    def test_to_kib(self):
        self.assertEqual(to_kib(2048), 2.0)
        self.assertEqual(to_kib(512), 0.5)
