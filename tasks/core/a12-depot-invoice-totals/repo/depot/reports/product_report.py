"""Plain-text summaries of Product records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.product import Product


def summary_lines(records: list[Product]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Product report: {len(records)} record(s)"]
    counts = Counter(r.category for r in records)
    for value in sorted(counts):
        lines.append(f"  category {value}: {counts[value]}")
    total = sum_cents(r.unit_price for r in records)
    lines.append(f"  total unit_price: {format_cents(total)}")
    return lines


def table(records: list[Product]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
