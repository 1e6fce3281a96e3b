import unittest

from pantry import Inventory, Item
from pantry.alerts import expired, expiring_within
from pantry.util.text import when


def stock():
    inv = Inventory()
    inv.add(Item("milk", 4, "2024-05-03", "fridge"))
    inv.add(Item("bread", 2, "2024-04-28"))
    inv.add(Item("rice", 10, "2025-01-01"))
    return inv


class TestInventory(unittest.TestCase):
    def test_take_oldest_first(self):
        inv = Inventory()
        inv.add(Item("egg", 6, "2024-05-10"))
        inv.add(Item("egg", 6, "2024-05-05"))
        inv.take("egg", 8)
        self.assertEqual([(i.expires, i.quantity) for i in inv], [("2024-05-10", 4)])

    def test_find(self):
        self.assertEqual([i.name for i in stock().find(location="fridge")], ["milk"])


class TestAlerts(unittest.TestCase):
    def test_expired(self):
        self.assertEqual([i.name for i in expired(stock(), "2024-05-01")], ["bread"])

    def test_expiring(self):
        names = [i.name for i in expiring_within(stock(), "2024-05-01", 7)]
        self.assertEqual(names, ["milk"])

    def test_when(self):
        self.assertEqual(when(1), "(in 1 day)")


if __name__ == "__main__":
    unittest.main()
