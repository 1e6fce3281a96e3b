"""Plain-text summaries of ReturnNote records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.return_note import ReturnNote


def summary_lines(records: list[ReturnNote]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"ReturnNote report: {len(records)} record(s)"]
    counts = Counter(r.condition for r in records)
    for value in sorted(counts):
        lines.append(f"  condition {value}: {counts[value]}")
    total = sum_cents(r.credit for r in records)
    lines.append(f"  total credit: {format_cents(total)}")
    return lines


def by_month(records: list[ReturnNote]) -> dict[str, int]:
    """How many active records fall in each month of received_on ('YYYY-MM')."""
    counts: dict[str, int] = {}
    for record in records:
        if record.is_active:
            key = record.received_on.strftime("%Y-%m")
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def table(records: list[ReturnNote]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
