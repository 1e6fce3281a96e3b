"""Items and the inventory that holds them."""

from dataclasses import dataclass

from pantry.util.dates import parse


@dataclass
class Item:
    name: str
    quantity: int
    expires: str  # ISO date
    location: str = "shelf"

    def __post_init__(self):
        if not self.name:
            raise ValueError("item name must not be empty")
        if self.quantity < 0:
            raise ValueError(f"{self.name}: quantity must not be negative")
        parse(self.expires)


class Inventory:
    def __init__(self):
        self._items = []

    def add(self, item):
        self._items.append(item)
        return item

    def remove(self, name):
        """Remove every batch of an item; returns how many batches were removed."""
        before = len(self._items)
        self._items = [i for i in self._items if i.name != name]
        return before - len(self._items)

    def take(self, name, quantity):
        """Take quantity units, oldest batches (soonest expiry) first."""
        batches = sorted((i for i in self._items if i.name == name), key=lambda i: i.expires)
        if sum(i.quantity for i in batches) < quantity:
            raise ValueError(f"not enough {name} in stock")
        for batch in batches:
            used = min(batch.quantity, quantity)
            batch.quantity -= used
            quantity -= used
        self._items = [i for i in self._items if i.quantity > 0]

    def find(self, name=None, location=None):
        return [
            i for i in self._items
            if (name is None or i.name == name) and (location is None or i.location == location)
        ]

    def __iter__(self):
        return iter(list(self._items))

    def __len__(self):
        return len(self._items)
