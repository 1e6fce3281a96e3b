"""Clock times as minutes after midnight."""

from __future__ import annotations

import re

from ..core.errors import ValidationError

GRID_MINUTES = 15
_HHMM = re.compile(r"^(\d{1,2}):(\d{2})$")


def to_minutes(text: str) -> int:
    """'09:30' -> 570."""
    match = _HHMM.match(text.strip())
    if not match:
        raise ValidationError(f"not a time (HH:MM): {text!r}")
    hours, minutes = int(match.group(1)), int(match.group(2))
    if hours > 23 or minutes > 59:
        raise ValidationError(f"not a time of day: {text!r}")
    return hours * 60 + minutes


def to_hhmm(minutes: int) -> str:
    """570 -> '09:30'."""
    if not 0 <= minutes <= 24 * 60:
        raise ValidationError(f"minutes out of range: {minutes}")
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def on_grid(minutes: int) -> bool:
    return minutes % GRID_MINUTES == 0


def grid_from(start: int, end: int) -> list[int]:
    """Grid points t with start <= t < end, starting at the first grid point at or after start."""
    first = -(-start // GRID_MINUTES) * GRID_MINUTES
    return list(range(first, end, GRID_MINUTES))
