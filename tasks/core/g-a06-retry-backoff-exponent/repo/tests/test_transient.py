import errno
import unittest

from netretry.transient import HTTPStatusError, is_transient, parse_retry_after


class TestTransient(unittest.TestCase):
    def test_http(self):
        self.assertTrue(is_transient(HTTPStatusError(503)))
        self.assertTrue(is_transient(HTTPStatusError(429, retry_after=2)))
        self.assertFalse(is_transient(HTTPStatusError(404)))

    def test_os_errors(self):
        self.assertTrue(is_transient(TimeoutError()))
        self.assertTrue(is_transient(OSError(errno.ECONNRESET, "reset")))
        self.assertFalse(is_transient(OSError(errno.ENOENT, "missing")))
        self.assertFalse(is_transient(ValueError("bad input")))

    def test_retry_after(self):
        self.assertEqual(parse_retry_after(" 120 "), 120.0)
        self.assertIsNone(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"))
        self.assertIsNone(parse_retry_after(None))
