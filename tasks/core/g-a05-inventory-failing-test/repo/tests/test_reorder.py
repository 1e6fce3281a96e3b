import unittest

from stockroom.inventory import Inventory
from stockroom.reorder import OrderLine, Par, cases_needed, reorder_plan


class TestReorder(unittest.TestCase):
    def test_cases_needed(self):
        self.assertEqual(cases_needed(3, Par(10, 4)), 2)
        self.assertEqual(cases_needed(10, Par(10, 4)), 0)
        self.assertEqual(cases_needed(0, Par(12, 12)), 1)

    def test_plan(self):
        inventory = Inventory()
        inventory.add("A1", "apples", 1.5, 10)
        inventory.add("B2", "bread", 2.0, 3)
        plan = reorder_plan(inventory, {"B2": Par(12, 6), "A1": Par(8), "C3": Par(2)})
        self.assertEqual(plan, [OrderLine("B2", 2, 12), OrderLine("C3", 2, 2)])

    def test_bad_par(self):
        with self.assertRaises(ValueError):
            Par(5, 0)
