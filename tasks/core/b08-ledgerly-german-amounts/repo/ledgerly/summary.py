"""Spending summaries."""

from collections import defaultdict


def spending_by_category(entries):
    """Money out per category (positive numbers), largest first."""
    totals = defaultdict(float)
    for e in entries:
        if e.amount < 0:
            totals[e.category] += -e.amount
    return dict(sorted(((k, round(v, 2)) for k, v in totals.items()), key=lambda kv: -kv[1]))


def balance(entries):
    return round(sum(e.amount for e in entries), 2)
