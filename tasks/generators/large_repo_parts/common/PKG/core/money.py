"""Money as integer cents. Floats never hold money in this code base."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from .errors import ValidationError

CURRENCY_SYMBOL = "€"


def parse_cents(text: str) -> int:
    """'12.34', '12,34', '€ 1,234.50' or '-3' -> cents; refuses more than two decimals."""
    cleaned = text.strip().replace(CURRENCY_SYMBOL, "").replace(" ", "")
    if "," in cleaned and "." in cleaned:
        cleaned = cleaned.replace(",", "")
    else:
        cleaned = cleaned.replace(",", ".")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValidationError(f"not an amount of money: {text!r}") from None
    if value != value.quantize(Decimal("0.01")):
        raise ValidationError(f"more than two decimals in {text!r}")
    return int(value * 100)


def format_cents(cents: int, symbol: str = CURRENCY_SYMBOL) -> str:
    """1234567 -> '€12,345.67'; negative amounts get a leading minus: '-€5.00'."""
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(cents), 100)
    return f"{sign}{symbol}{units:,}.{rest:02d}"


def sum_cents(values: Iterable[int]) -> int:
    total = 0
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValidationError(f"money must be integer cents, got {value!r}")
        total += value
    return total


def percent_of(cents: int, percent: Decimal | int | str) -> int:
    """percent% of an amount, rounded half up to the cent."""
    exact = Decimal(cents) * Decimal(str(percent)) / Decimal(100)
    return int(exact.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def split_evenly(cents: int, parts: int) -> list[int]:
    """Split an amount into parts that differ by at most one cent and sum to the amount."""
    if parts < 1:
        raise ValidationError("parts must be at least 1")
    base, extra = divmod(cents, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]
