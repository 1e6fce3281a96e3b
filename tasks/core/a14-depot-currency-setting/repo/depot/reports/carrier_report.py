"""Plain-text summaries of Carrier records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.carrier import Carrier


def summary_lines(records: list[Carrier]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Carrier report: {len(records)} record(s)"]
    counts = Counter(r.mode for r in records)
    for value in sorted(counts):
        lines.append(f"  mode {value}: {counts[value]}")
    total = sum_cents(r.base_fee for r in records)
    lines.append(f"  total base_fee: {format_cents(total)}")
    return lines


def table(records: list[Carrier]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
