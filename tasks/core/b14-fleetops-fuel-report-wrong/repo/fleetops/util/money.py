"""Money: amounts are floats in records, sums are integer cents."""

from __future__ import annotations

from collections.abc import Iterable


def to_cents(amount: float) -> int:
    """An amount in cents, rounded to the nearest cent (2.675 -> 268 is not promised:
    floats cannot hold 2.675 exactly)."""
    return int(amount * 100)


def from_cents(cents: int) -> float:
    return cents / 100


def sum_cents(amounts: Iterable[float]) -> int:
    """The exact cent total of several amounts (each rounded once, then added)."""
    return sum(to_cents(a) for a in amounts)


def format_money(cents: int, symbol: str = "") -> str:
    """1234567 -> '12,345.67' (with an optional currency symbol in front)."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{symbol}{whole:,}.{frac:02d}"


def split_cents(cents: int, parts: int) -> list[int]:
    """Split cents into parts that differ by at most one cent and add up exactly."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    base, extra = divmod(cents, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]
