"""Selecting entries by date range, month or quarter."""

from datetime import date

from .entries import Entry


def between(entries: list[Entry], start: date, end: date) -> list[Entry]:
    """Entries with start <= day <= end, in their original order."""
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    return [e for e in entries if start <= e.day <= end]


def quarter(day: date) -> str:
    """'2024-Q2' for any day in April to June 2024."""
    return f"{day.year:04d}-Q{(day.month - 1) // 3 + 1}"


def parse_month(text: str) -> tuple[int, int]:
    """'2024-03' -> (2024, 3); raises ValueError for anything else."""
    year, sep, month = text.partition("-")
    if not sep or len(year) != 4 or len(month) != 2 or not (year + month).isdigit():
        raise ValueError(f"bad month {text!r} (expected YYYY-MM)")
    if not 1 <= int(month) <= 12:
        raise ValueError(f"bad month {text!r}: month must be 01-12")
    return int(year), int(month)


def in_month(entries: list[Entry], month: str) -> list[Entry]:
    """Entries of one 'YYYY-MM' month."""
    parse_month(month)
    return [e for e in entries if e.month == month]


def in_quarter(entries: list[Entry], name: str) -> list[Entry]:
    """Entries of one 'YYYY-QN' quarter."""
    return [e for e in entries if quarter(e.day) == name]
