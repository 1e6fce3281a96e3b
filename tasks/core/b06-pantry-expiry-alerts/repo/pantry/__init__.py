"""pantry: storeroom inventory and expiry alerts."""

from pantry.inventory import Inventory, Item

__all__ = ["Inventory", "Item"]
