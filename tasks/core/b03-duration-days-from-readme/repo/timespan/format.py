"""format_duration: 5400 -> '1h30m'."""

from timespan.units import UNIT_SECONDS


def format_duration(seconds):
    """The shortest '<n><unit>...' text for a whole number of seconds, largest unit first."""
    if seconds < 0:
        raise ValueError("duration must not be negative")
    if seconds == 0:
        return "0s"
    parts = []
    for unit, size in UNIT_SECONDS.items():
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
