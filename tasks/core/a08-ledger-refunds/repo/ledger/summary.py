"""Per-month totals."""

from collections import defaultdict
from dataclasses import dataclass

from .entries import Entry


@dataclass(frozen=True)
class MonthSummary:
    sales: int
    refunds: int
    net: int


def summarise(entries: list[Entry]) -> dict[str, MonthSummary]:
    by_month: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        by_month[entry.month].append(entry)
    result = {}
    for month, items in sorted(by_month.items()):
        sales = sum(e.cents for e in items if e.kind == "sale")
        refunds = sum(e.cents for e in items if e.kind == "refund")
        result[month] = MonthSummary(sales=sales, refunds=refunds, net=sales + refunds)
    return result
