"""Plain-text summaries of Bin records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.bin import Bin


def summary_lines(records: list[Bin]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Bin report: {len(records)} record(s)"]
    counts = Counter(r.zone for r in records)
    for value in sorted(counts):
        lines.append(f"  zone {value}: {counts[value]}")
    return lines


def table(records: list[Bin]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
