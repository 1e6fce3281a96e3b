"""Call a function until it succeeds or the attempts run out."""

from collections.abc import Callable

from .backoff import delays


class GaveUp(Exception):
    """Every attempt failed; the last error is the cause."""


def retry(fn: Callable[[], object], attempts: int = 5, base: float = 1.0,
          max_delay: float = 60.0, sleep: Callable[[float], None] = lambda s: None,
          retry_on: tuple[type[BaseException], ...] = (OSError,)) -> object:
    last: BaseException | None = None
    for wait in [0.0, *delays(attempts - 1, base, max_delay)]:
        if wait:
            sleep(wait)
        try:
            return fn()
        except retry_on as exc:
            last = exc
    raise GaveUp(f"gave up after {attempts} attempts") from last
