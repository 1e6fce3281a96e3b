"""Summaries of a day's readings (Celsius)."""

from statistics import mean


def daily_summary(readings: list[float]) -> dict[str, float]:
    if not readings:
        raise ValueError("no readings")
    return {
        "min": min(readings),
        "max": max(readings),
        "mean": round(mean(readings), 2),
    }


def frost_hours(readings: list[float], threshold: float = 0.0) -> int:
    """How many hourly readings are at or below the threshold."""
    return sum(1 for r in readings if r <= threshold)
