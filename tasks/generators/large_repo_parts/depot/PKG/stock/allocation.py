"""Pick bins for an order line: oldest count first, so old stock leaves first."""

from __future__ import annotations

from ..core.errors import ValidationError
from ..models.stock_count import StockCount
from .levels import latest_counts


def allocate(counts: list[StockCount], product_id: str, quantity: int) -> list[tuple[str, int]]:
    """(bin id, units) pairs covering quantity; ValidationError if stock is short."""
    candidates = [c for (p, _), c in latest_counts(counts).items() if p == product_id]
    candidates.sort(key=lambda c: (c.counted_on, c.bin_id))
    picks: list[tuple[str, int]] = []
    needed = quantity
    for count in candidates:
        if needed == 0:
            break
        take = min(needed, count.quantity)
        if take:
            picks.append((count.bin_id, take))
            needed -= take
    if needed:
        raise ValidationError(f"short of {product_id} by {needed} unit(s)")
    return picks
