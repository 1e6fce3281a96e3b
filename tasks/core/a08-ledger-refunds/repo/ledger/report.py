"""The plain-text monthly report."""

from .entries import Entry
from .money import format_money
from .summary import summarise


def monthly_report(entries: list[Entry]) -> list[str]:
    lines = []
    for month, s in summarise(entries).items():
        lines.append(
            f"{month}  sales {format_money(s.sales)}  refunds {format_money(-s.refunds)}"
            f"  net {format_money(s.net)}"
        )
    return lines
