import os
import unittest

from ledgerly.importer import import_statement
from ledgerly.summary import balance, spending_by_category

DATA = os.path.join(os.path.dirname(__file__), "data")


class TestImporter(unittest.TestCase):
    def test_english_statement(self):
        entries = import_statement(os.path.join(DATA, "statement_en.csv"), "en")
        self.assertEqual(entries[1].day, "2024-05-03")
        self.assertEqual(balance(entries), 1425.80)

    def test_german_statement(self):
        entries = import_statement(os.path.join(DATA, "statement_de.csv"), "de")
        self.assertEqual([e.day for e in entries], ["2024-05-02", "2024-05-03", "2024-05-04"])
        self.assertEqual(entries[1].amount, -1234.56)
        self.assertEqual(spending_by_category(entries), {"housing": 1234.56, "groceries": 34.99})


if __name__ == "__main__":
    unittest.main()
