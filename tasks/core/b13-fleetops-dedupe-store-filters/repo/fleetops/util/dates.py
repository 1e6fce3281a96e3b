"""ISO dates as strings: validation, months and ranges (never the clock)."""

from __future__ import annotations

import datetime as _dt


def parse_date(text: str) -> _dt.date:
    try:
        return _dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(f"not an ISO date (YYYY-MM-DD): {text!r}") from None


def is_date(text: object) -> bool:
    if not isinstance(text, str):
        return False
    try:
        parse_date(text)
    except ValueError:
        return False
    return True


def month_of(day: str) -> str:
    """'2024-03-15' -> '2024-03'."""
    parse_date(day)
    return day[:7]


def in_range(day: str, start: str | None, end: str | None) -> bool:
    """True if start <= day <= end; a missing bound is open."""
    if start is not None and day < start:
        return False
    if end is not None and day > end:
        return False
    return True


def days_between(first: str, last: str) -> int:
    return (parse_date(last) - parse_date(first)).days
