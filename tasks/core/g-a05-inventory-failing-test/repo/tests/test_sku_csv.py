import unittest

from stockroom.csvio import StockFileError, dump_items, load_inventory, parse_rows
from stockroom.sku import BadSku, is_sku, normalize_sku, sku_prefix

CSV = """sku,name,unit_price,quantity
a1,apples,1.50,10
BRD-204,bread,2.00,3

a1,apples,1.50,5
"""


class TestSku(unittest.TestCase):
    def test_normalize(self):
        self.assertEqual(normalize_sku(" #brd-204 "), "BRD204")
        self.assertEqual(sku_prefix("brd204"), "BRD")
        self.assertFalse(is_sku("204BRD"))
        with self.assertRaisesRegex(BadSku, "not a sku"):
            normalize_sku("ABCD1")


class TestCsv(unittest.TestCase):
    def test_parse_rows(self):
        items = parse_rows(CSV)
        self.assertEqual([i.sku for i in items], ["A1", "BRD204", "A1"])
        self.assertEqual(items[1].unit_price, 2.0)

    def test_load_merges_duplicates(self):
        inventory = load_inventory(CSV)
        self.assertEqual(inventory.quantity("A1"), 15)
        self.assertEqual(inventory.low_stock(3), ["BRD204"])

    def test_errors_name_the_line(self):
        with self.assertRaisesRegex(StockFileError, "line 1: header"):
            parse_rows("code,name\n")
        with self.assertRaisesRegex(StockFileError, "line 2: expected 4 columns"):
            parse_rows("sku,name,unit_price,quantity\nA1,apples\n")
        with self.assertRaisesRegex(StockFileError, "line 3: .*negative quantity"):
            parse_rows("sku,name,unit_price,quantity\nA1,a,1,1\nB2,b,1,-4\n")

    def test_dump_round_trip(self):
        items = parse_rows(CSV)[:2]
        self.assertEqual(parse_rows(dump_items(items)), items)
