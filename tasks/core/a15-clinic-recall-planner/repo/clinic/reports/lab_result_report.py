"""Plain-text summaries of LabResult records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.lab_result import LabResult


def summary_lines(records: list[LabResult]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"LabResult report: {len(records)} record(s)"]
    counts = Counter(r.flag for r in records)
    for value in sorted(counts):
        lines.append(f"  flag {value}: {counts[value]}")
    return lines


def by_month(records: list[LabResult]) -> dict[str, int]:
    """How many active records fall in each month of resulted_on ('YYYY-MM')."""
    counts: dict[str, int] = {}
    for record in records:
        if record.is_active:
            key = record.resulted_on.strftime("%Y-%m")
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def table(records: list[LabResult]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
