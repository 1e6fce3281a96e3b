import unittest

from stockroom.inventory import Inventory


class TestValue(unittest.TestCase):
    def test_total_value(self):
        inv = Inventory()
        inv.add("X", "x", 2.5, 4)
        inv.add("Y", "y", 1.0, 7)
        self.assertEqual(inv.total_value(), 17.0)

    def test_value_after_removal(self):
        inv = Inventory()
        inv.add("X", "x", 3.0, 5)
        inv.remove("X", 2)
        self.assertEqual(inv.total_value(), 9.0)

    def test_empty(self):
        self.assertEqual(Inventory().total_value(), 0)


class TestStock(unittest.TestCase):
    def test_low_stock(self):
        inv = Inventory()
        inv.add("X", "x", 3.0, 5)
        inv.add("Y", "y", 3.0, 0)
        self.assertEqual(inv.low_stock(0), ["Y"])
