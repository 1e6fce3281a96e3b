"""Deciding which failures are worth retrying.

Retrying a bad request wastes time and can repeat a side effect; retrying a timeout or a
503 usually helps. These rules are shared by every client that uses netretry.
"""

import errno

# HTTP statuses that mean "try again later".
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})

# OS error numbers for network conditions that are usually temporary.
RETRYABLE_ERRNO = frozenset({errno.ECONNRESET, errno.ECONNREFUSED, errno.ETIMEDOUT,
                             errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EAGAIN})


class HTTPStatusError(Exception):
    """A response with an error status; `retry_after` is the server's hint in seconds."""

    def __init__(self, status: int, retry_after: float | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after


def is_transient(exc: BaseException) -> bool:
    """True for errors a retry may fix: timeouts, resets, 5xx and 429 responses."""
    if isinstance(exc, HTTPStatusError):
        return exc.status in RETRYABLE_STATUS
    if isinstance(exc, TimeoutError):
        return True
    if isinstance(exc, OSError):
        return exc.errno in RETRYABLE_ERRNO
    return False


def parse_retry_after(value: str | None) -> float | None:
    """A Retry-After header in seconds ('120' -> 120.0); None if absent or not a number.

    HTTP also allows a date here; our servers never send one, so dates count as absent.
    """
    if value is None:
        return None
    value = value.strip()
    if not value.isdigit():
        return None
    return float(value)
