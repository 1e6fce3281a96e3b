"""Backoff schedules."""


def delays(attempts: int, base: float = 1.0, max_delay: float = 60.0) -> list[float]:
    """Seconds to wait before each retry: base * 2**n for n = 0, 1, ..., capped at max_delay."""
    if attempts < 0:
        raise ValueError("attempts cannot be negative")
    return [min(max_delay, base * 2 * attempt) for attempt in range(attempts)]
