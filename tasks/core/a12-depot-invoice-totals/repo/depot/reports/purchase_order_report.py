"""Plain-text summaries of PurchaseOrder records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.purchase_order import PurchaseOrder


def summary_lines(records: list[PurchaseOrder]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"PurchaseOrder report: {len(records)} record(s)"]
    counts = Counter(r.state for r in records)
    for value in sorted(counts):
        lines.append(f"  state {value}: {counts[value]}")
    total = sum_cents(r.amount for r in records)
    lines.append(f"  total amount: {format_cents(total)}")
    return lines


def by_month(records: list[PurchaseOrder]) -> dict[str, int]:
    """How many active records fall in each month of ordered_on ('YYYY-MM')."""
    counts: dict[str, int] = {}
    for record in records:
        if record.is_active:
            key = record.ordered_on.strftime("%Y-%m")
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def table(records: list[PurchaseOrder]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
