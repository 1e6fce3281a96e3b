"""Plain-text summaries of Customer records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.customer import Customer


def summary_lines(records: list[Customer]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Customer report: {len(records)} record(s)"]
    counts = Counter(r.segment for r in records)
    for value in sorted(counts):
        lines.append(f"  segment {value}: {counts[value]}")
    total = sum_cents(r.credit_limit for r in records)
    lines.append(f"  total credit_limit: {format_cents(total)}")
    return lines


def table(records: list[Customer]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
