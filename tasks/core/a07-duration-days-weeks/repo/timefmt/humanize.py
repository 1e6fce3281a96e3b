"""Long, human-readable durations for messages and reports.

``format_duration`` writes the compact form (``1h30m``); this module writes the spelled-out
form (``1 hour 30 minutes``) and rounds to the most useful precision. It follows the unit
table in timefmt.units, so new units show up here automatically once they have a name.
"""

from .units import UNITS

# Singular and plural names, by unit symbol. Symbols without a name here fall back to the
# compact form (e.g. "3x").
NAMES = {
    "w": ("week", "weeks"),
    "d": ("day", "days"),
    "h": ("hour", "hours"),
    "m": ("minute", "minutes"),
    "s": ("second", "seconds"),
}


def _name(amount: int, unit: str) -> str:
    if unit not in NAMES:
        return f"{amount}{unit}"
    singular, plural = NAMES[unit]
    return f"{amount} {singular if amount == 1 else plural}"


def split_units(seconds: int) -> list[tuple[int, str]]:
    """(amount, unit) pairs, largest unit first, zero amounts left out."""
    if seconds < 0:
        raise ValueError("negative duration")
    parts = []
    rest = seconds
    for unit, size in UNITS.items():
        amount, rest = divmod(rest, size)
        if amount:
            parts.append((amount, unit))
    return parts


def humanize(seconds: int, max_parts: int = 2) -> str:
    """5400 -> '1 hour 30 minutes'; 0 -> '0 seconds'.

    Only the `max_parts` largest non-zero units are shown; the rest is dropped (truncated,
    not rounded), which is what progress messages want.
    """
    if max_parts < 1:
        raise ValueError("max_parts must be at least 1")
    parts = split_units(seconds)
    if not parts:
        return _name(0, "s")
    return " ".join(_name(amount, unit) for amount, unit in parts[:max_parts])


def ago(seconds: int) -> str:
    """'just now' under ten seconds, otherwise '<one unit> ago': 125 -> '2 minutes ago'."""
    if seconds < 0:
        raise ValueError("a time in the future is not 'ago'")
    if seconds < 10:
        return "just now"
    return f"{humanize(seconds, max_parts=1)} ago"
