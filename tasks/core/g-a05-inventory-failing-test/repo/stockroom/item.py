"""One stocked item."""

from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    name: str
    unit_price: float
    quantity: int

    def __post_init__(self) -> None:
        if self.unit_price < 0:
            raise ValueError(f"{self.sku}: negative price")
        if self.quantity < 0:
            raise ValueError(f"{self.sku}: negative quantity")
