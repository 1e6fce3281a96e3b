"""An overall time budget for a retried operation.

Backoff alone can make a request take minutes; callers usually want to give up after a fixed
budget instead. The clock is injectable (like ``sleep`` in retry) so tests never wait.
"""

import time
from collections.abc import Callable


class Deadline:
    """A budget in seconds, measured from construction on the given monotonic clock."""

    def __init__(self, budget: float, clock: Callable[[], float] = time.monotonic) -> None:
        if budget <= 0:
            raise ValueError("budget must be positive")
        self._clock = clock
        self._end = clock() + budget

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self._end - self._clock())

    def expired(self) -> bool:
        return self.remaining() == 0.0

    def clamp(self, wait: float) -> float:
        """The wait shortened so it does not run past the deadline."""
        return min(wait, self.remaining())
