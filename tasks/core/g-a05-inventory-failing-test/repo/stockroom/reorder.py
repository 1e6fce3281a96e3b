"""Suggesting purchase orders from stock levels.

Each sku has a par level (the quantity the shop wants on the shelf) and a case size (the
supplier only sells whole cases). The reorder plan tops every sku up to at least its par level.
"""

from dataclasses import dataclass

from .inventory import Inventory


@dataclass(frozen=True)
class Par:
    level: int
    case_size: int = 1

    def __post_init__(self) -> None:
        if self.level < 0:
            raise ValueError("par level cannot be negative")
        if self.case_size < 1:
            raise ValueError("case size must be at least 1")


@dataclass(frozen=True)
class OrderLine:
    sku: str
    cases: int
    units: int


def cases_needed(on_hand: int, par: Par) -> int:
    """Whole cases to order so that on_hand + ordered >= par.level."""
    missing = par.level - on_hand
    if missing <= 0:
        return 0
    return -(-missing // par.case_size)


def reorder_plan(inventory: Inventory, pars: dict[str, Par]) -> list[OrderLine]:
    """Order lines for every sku below its par level, sorted by sku."""
    lines = []
    for sku in sorted(pars):
        cases = cases_needed(inventory.quantity(sku), pars[sku])
        if cases:
            lines.append(OrderLine(sku, cases, cases * pars[sku].case_size))
    return lines
