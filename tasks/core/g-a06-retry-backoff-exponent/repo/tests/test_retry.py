import unittest

from netretry.retry import GaveUp, retry


class TestRetry(unittest.TestCase):
    def test_success_first_time(self):
        self.assertEqual(retry(lambda: 42), 42)

    def test_gives_up(self):
        def boom():
            raise OSError("down")
        with self.assertRaises(GaveUp):
            retry(boom, attempts=3)
