"""Plain-text summaries of Insurer records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.insurer import Insurer


def summary_lines(records: list[Insurer]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Insurer report: {len(records)} record(s)"]
    counts = Counter(r.kind for r in records)
    for value in sorted(counts):
        lines.append(f"  kind {value}: {counts[value]}")
    total = sum_cents(r.copay for r in records)
    lines.append(f"  total copay: {format_cents(total)}")
    return lines


def table(records: list[Insurer]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
