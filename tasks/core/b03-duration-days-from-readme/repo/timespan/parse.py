"""parse_duration: '1h30m' -> 5400."""

import re

from timespan.units import UNIT_SECONDS

_PART = re.compile(r"\s*(\d+)\s*([A-Za-z]*)\s*")


def parse_duration(text):
    """Seconds in a duration such as '1h30m' or '2d 12h' (see README.md)."""
    if not isinstance(text, str):
        raise TypeError(f"parse_duration() needs a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("empty duration")
    total = 0
    pos = 0
    while pos < len(text):
        match = _PART.match(text, pos)
        if not match or match.end() == pos:
            raise ValueError(f"cannot parse duration part {text[pos:]!r}")
        number, unit = match.groups()
        if not unit:
            raise ValueError(f"duration part {number!r} has no unit")
        unit = unit.lower()
        if unit not in UNIT_SECONDS:
            raise ValueError(f"unknown duration unit {unit!r} in {text!r}")
        total += int(number) * UNIT_SECONDS[unit]
        pos = match.end()
    return total
