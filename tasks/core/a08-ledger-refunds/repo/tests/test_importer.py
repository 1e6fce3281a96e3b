import unittest
from datetime import date

from ledger.entries import Entry
from ledger.importer import TillExportError, parse_till_date, read_till_export

EXPORT = """date,type,amount,memo
05/03/2024,SALE,12.50,2 mugs #kitchen
06/03/2024,refund,4.00,chipped mug #kitchen

07/03/2024,SALE,30,gift card
"""


class TestImporter(unittest.TestCase):
    def test_read(self):
        entries = read_till_export(EXPORT)
        self.assertEqual(entries[0], Entry(date(2024, 3, 5), "sale", 1250, "2 mugs #kitchen"))
        self.assertEqual(entries[1].kind, "refund")
        self.assertEqual(entries[2].cents, 3000)

    def test_dates(self):
        self.assertEqual(parse_till_date("29/02/2024"), date(2024, 2, 29))
        with self.assertRaisesRegex(ValueError, "DD/MM/YYYY"):
            parse_till_date("2024-02-29")

    def test_errors_name_the_line(self):
        header = "date,type,amount,memo\n"
        with self.assertRaisesRegex(TillExportError, "line 1: header"):
            read_till_export("day,kind\n")
        with self.assertRaisesRegex(TillExportError, "line 2: type must be SALE or REFUND"):
            read_till_export(header + "05/03/2024,VOID,1.00,x\n")
        with self.assertRaisesRegex(TillExportError, "line 3: expected 4 columns"):
            read_till_export(header + "05/03/2024,SALE,1.00,x\n05/03/2024,SALE\n")
        with self.assertRaisesRegex(TillExportError, "line 2: bad date"):
            read_till_export(header + "31/02/2024,SALE,1.00,x\n")
