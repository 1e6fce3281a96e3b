from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    day: str  # ISO date
    payee: str
    amount: float  # negative: money out
    category: str = "uncategorised"
