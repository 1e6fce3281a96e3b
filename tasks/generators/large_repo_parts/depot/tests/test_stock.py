import unittest
from datetime import date

from PKG.models.stock_count import StockCount
from PKG.stock.allocation import allocate
from PKG.stock.levels import on_hand


def count(n, product, bin_id, day, qty):
    return StockCount(id=f"CNT-{n:06d}", product_id=product, bin_id=bin_id,
                      counted_on=day, quantity=qty)


class TestStock(unittest.TestCase):
    def test_latest_count_wins(self):
        counts = [count(1, "P1", "B1", date(2024, 1, 1), 5),
                  count(2, "P1", "B1", date(2024, 2, 1), 3)]
        self.assertEqual(on_hand(counts), {"P1": 3})

    def test_allocate_oldest_first(self):
        counts = [count(1, "P1", "B2", date(2024, 3, 1), 5),
                  count(2, "P1", "B1", date(2024, 1, 1), 2)]
        self.assertEqual(allocate(counts, "P1", 4), [("B1", 2), ("B2", 2)])
