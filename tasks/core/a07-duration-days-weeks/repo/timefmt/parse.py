"""Text to seconds."""

import re

from .units import UNITS

_PART = re.compile(r"(\d+)([a-z]+)")


def parse_duration(text: str) -> int:
    """'1h30m' -> 5400. Whitespace is ignored; each unit may appear once."""
    compact = "".join(text.split()).lower()
    if not compact:
        raise ValueError("empty duration")
    pos = 0
    total = 0
    seen = set()
    for match in _PART.finditer(compact):
        if match.start() != pos:
            raise ValueError(f"cannot parse {text!r} at {compact[pos:]!r}")
        amount, unit = int(match.group(1)), match.group(2)
        if unit not in UNITS:
            raise ValueError(f"unknown unit {unit!r} in {text!r}")
        if unit in seen:
            raise ValueError(f"unit {unit!r} given twice in {text!r}")
        seen.add(unit)
        total += amount * UNITS[unit]
        pos = match.end()
    if pos != len(compact):
        raise ValueError(f"cannot parse {text!r} at {compact[pos:]!r}")
    return total
