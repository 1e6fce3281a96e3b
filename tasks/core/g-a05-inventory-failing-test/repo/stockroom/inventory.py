"""The inventory: items by sku."""

from .item import Item


class Inventory:
    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def add(self, sku: str, name: str, unit_price: float, quantity: int) -> None:
        if sku in self._items:
            self._items[sku].quantity += quantity
        else:
            self._items[sku] = Item(sku, name, unit_price, quantity)

    def remove(self, sku: str, quantity: int) -> None:
        item = self._items[sku]
        if quantity > item.quantity:
            raise ValueError(f"only {item.quantity} of {sku} in stock")
        item.quantity -= quantity

    def quantity(self, sku: str) -> int:
        return self._items[sku].quantity if sku in self._items else 0

    def total_value(self) -> float:
        return sum(item.unit_price for item in self._items.values())

    def low_stock(self, threshold: int) -> list[str]:
        return sorted(s for s, i in self._items.items() if i.quantity <= threshold)
