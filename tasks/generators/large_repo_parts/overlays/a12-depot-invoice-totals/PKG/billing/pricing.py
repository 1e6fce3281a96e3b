"""The price of one order line: volume discount, then the customer's price-list discount."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import ValidationError
from ..core.money import percent_of

# (minimum quantity on one line, discount percent), largest first.
VOLUME_TIERS: tuple[tuple[int, int], ...] = ((100, 10), (50, 5))


@dataclass(frozen=True)
class LinePrice:
    gross: int  # unit price x quantity
    volume_discount: int
    list_discount: int

    @property
    def net(self) -> int:
        return self.gross - self.volume_discount - self.list_discount


def volume_percent(quantity: int) -> int:
    """The volume discount percent for a line of this many units."""
    for minimum, percent in VOLUME_TIERS:
        if quantity > minimum:
            return percent
    return 0


def price_line(unit_price: int, quantity: int, list_discount_pct: int = 0) -> LinePrice:
    if quantity < 1:
        raise ValidationError("quantity must be at least 1")
    if not 0 <= list_discount_pct <= 50:
        raise ValidationError("price list discount must be between 0 and 50 percent")
    gross = unit_price * quantity
    volume = percent_of(gross, volume_percent(quantity))
    after_volume = gross - volume
    listed = percent_of(after_volume, list_discount_pct)
    return LinePrice(gross=gross, volume_discount=volume, list_discount=listed)
