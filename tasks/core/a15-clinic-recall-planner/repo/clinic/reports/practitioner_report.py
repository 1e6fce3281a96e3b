"""Plain-text summaries of Practitioner records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.practitioner import Practitioner


def summary_lines(records: list[Practitioner]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Practitioner report: {len(records)} record(s)"]
    counts = Counter(r.role for r in records)
    for value in sorted(counts):
        lines.append(f"  role {value}: {counts[value]}")
    total = sum_cents(r.hourly_rate for r in records)
    lines.append(f"  total hourly_rate: {format_cents(total)}")
    return lines


def table(records: list[Practitioner]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
