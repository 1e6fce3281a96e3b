"""Ledger entries."""

from dataclasses import dataclass
from datetime import date

KINDS = ("sale", "refund")


@dataclass(frozen=True)
class Entry:
    day: date
    kind: str
    cents: int
    memo: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.cents <= 0:
            raise ValueError("amounts are positive cents; the kind gives the sign")

    @property
    def month(self) -> str:
        return f"{self.day.year:04d}-{self.day.month:02d}"

    @property
    def signed_cents(self) -> int:
        return self.cents if self.kind == "sale" else -self.cents
