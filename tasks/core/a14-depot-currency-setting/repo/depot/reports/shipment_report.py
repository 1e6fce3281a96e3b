"""Plain-text summaries of Shipment records for the daily report."""

from __future__ import annotations

from collections import Counter

from ..core.money import format_cents, sum_cents
from ..models.shipment import Shipment


def summary_lines(records: list[Shipment]) -> list[str]:
    """A heading, counts per category and money totals over active records."""
    records = [r for r in records if r.is_active]
    lines = [f"Shipment report: {len(records)} record(s)"]
    counts = Counter(r.carrier for r in records)
    for value in sorted(counts):
        lines.append(f"  carrier {value}: {counts[value]}")
    return lines


def by_month(records: list[Shipment]) -> dict[str, int]:
    """How many active records fall in each month of shipped_on ('YYYY-MM')."""
    counts: dict[str, int] = {}
    for record in records:
        if record.is_active:
            key = record.shipped_on.strftime("%Y-%m")
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def table(records: list[Shipment]) -> str:
    """One line per record: id and label, sorted by id."""
    return "\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
