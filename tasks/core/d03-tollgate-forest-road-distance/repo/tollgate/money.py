"""Amounts in cents: rounding and formatting."""

from decimal import ROUND_HALF_UP, Decimal


def round_half_up(value):
    """The nearest whole cent; halves round away from zero (as the tariff says)."""
    return int(Decimal(str(value)).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def fmt(cents):
    """12345 -> '123.45'."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def parse(text):
    """'123.45' -> 12345; '7' -> 700."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    whole, _, frac = text.lstrip("+-").partition(".")
    return sign * (int(whole or "0") * 100 + int((frac + "00")[:2]))
