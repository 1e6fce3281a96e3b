"""Stock on hand from the latest count per product and bin."""

from __future__ import annotations

from collections import defaultdict

from ..models.stock_count import StockCount


def latest_counts(counts: list[StockCount]) -> dict[tuple[str, str], StockCount]:
    """The most recent count for each (product, bin); later ids win on the same day."""
    latest: dict[tuple[str, str], StockCount] = {}
    for count in sorted(counts, key=lambda c: (c.counted_on, c.id)):
        latest[(count.product_id, count.bin_id)] = count
    return latest


def on_hand(counts: list[StockCount]) -> dict[str, int]:
    """Units per product over all bins."""
    totals: dict[str, int] = defaultdict(int)
    for (product_id, _), count in latest_counts(counts).items():
        totals[product_id] += count.quantity
    return dict(totals)


def reorder_suggestions(counts: list[StockCount], minimum: dict[str, int]) -> list[str]:
    """Products whose stock is below their minimum, sorted by id."""
    stock = on_hand(counts)
    return sorted(p for p, m in minimum.items() if stock.get(p, 0) < m)
