"""VAT rates by product category."""

from __future__ import annotations

from ..core.errors import ValidationError
from ..core.money import percent_of

VAT_PERCENT = {"food": 9, "drink": 21, "household": 21}


def vat_rate(category: str) -> int:
    try:
        return VAT_PERCENT[category]
    except KeyError:
        raise ValidationError(f"no VAT rate for category {category!r}") from None


def vat_for(category: str, net_cents: int) -> int:
    """VAT on a discounted line amount, rounded half up."""
    return percent_of(net_cents, vat_rate(category))
