"""Plain-text summaries of Invoice records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.invoice import Invoice


def summary_lines(records: list[Invoice]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Invoice report: {len(records)} record(s)"]
    counts = Counter(r.state for r in records)
    for value in sorted(counts):
        lines.append(f"  state {value}: {counts[value]}")
    total = sum_cents(r.total for r in records)
    lines.append(f"  total total: {format_cents(total)}")
    return lines


def by_month(records: list[Invoice]) -> dict[str, int]:
    """How many active records fall in each month of issued_on ('YYYY-MM')."""
    counts: dict[str, int] = {}
    for record in records:
        if record.is_active:
            key = record.issued_on.strftime("%Y-%m")
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def table(records: list[Invoice]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
