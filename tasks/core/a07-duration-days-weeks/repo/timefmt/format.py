"""Seconds to text."""

from .units import UNITS


def format_duration(seconds: int) -> str:
    """5400 -> '1h30m'; zero parts are left out; 0 -> '0s'."""
    if seconds < 0:
        raise ValueError("negative duration")
    if seconds == 0:
        return "0s"
    parts = []
    rest = seconds
    for unit, size in UNITS.items():
        amount, rest = divmod(rest, size)
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts)
