import unittest

from stockroom.inventory import Inventory


class TestInventory(unittest.TestCase):
    def setUp(self):
        self.inv = Inventory()
        self.inv.add("A1", "apples", 1.5, 5)
        self.inv.add("B2", "bread", 2.0, 0)
        self.inv.add("C3", "cheese", 10.0, 3)

    def test_add_existing_raises_quantity(self):
        self.inv.add("A1", "apples", 1.5, 5)
        self.assertEqual(self.inv.quantity("A1"), 10)

    def test_total_value(self):
        self.assertEqual(self.inv.total_value(), 37.5)

    def test_low_stock(self):
        self.assertEqual(self.inv.low_stock(3), ["B2", "C3"])
