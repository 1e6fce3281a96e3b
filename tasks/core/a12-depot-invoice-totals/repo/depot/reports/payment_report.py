"""Plain-text summaries of Payment records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.payment import Payment


def summary_lines(records: list[Payment]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Payment report: {len(records)} record(s)"]
    counts = Counter(r.method for r in records)
    for value in sorted(counts):
        lines.append(f"  method {value}: {counts[value]}")
    total = sum_cents(r.amount for r in records)
    lines.append(f"  total amount: {format_cents(total)}")
    return lines


def by_month(records: list[Payment]) -> dict[str, int]:
    """How many active records fall in each month of received_on ('YYYY-MM')."""
    counts: dict[str, int] = {}
    for record in records:
        if record.is_active:
            key = record.received_on.strftime("%Y-%m")
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def table(records: list[Payment]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
