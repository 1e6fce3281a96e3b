import os
import tempfile
import unittest

from ledgerly.amounts import parse_amount
from ledgerly.importer import import_statement
from ledgerly.locales import get_locale
from ledgerly.summary import balance, spending_by_category


class TestGerman(unittest.TestCase):
    def test_thousands_and_decimal(self):
        de = get_locale("de")
        self.assertEqual(parse_amount("-1.234,56", de), -1234.56)
        self.assertEqual(parse_amount("34,99 €", de), 34.99)
        self.assertEqual(parse_amount("1.000.000,00", de), 1000000.0)

    def test_german_statement(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.csv")
            with open(path, "w", encoding="utf-8") as f:
                f.write("date;payee;amount\n01.06.2024;ARAL Tankstelle;-72,10\n"
                        "02.06.2024;Netflix;-12,99\n03.06.2024;Gehalt;2.000,00\n")
            entries = import_statement(path, "de")
        self.assertEqual(balance(entries), 1914.91)
        self.assertEqual(spending_by_category(entries), {"fuel": 72.1, "subscriptions": 12.99})


class TestUnchanged(unittest.TestCase):
    def test_english(self):
        en = get_locale("en")
        self.assertEqual(parse_amount("1,234.56", en), 1234.56)
        self.assertEqual(parse_amount("-0.5", en), -0.5)

    def test_french(self):
        fr = get_locale("fr")
        self.assertEqual(parse_amount("1 234,56", fr), 1234.56)
        self.assertEqual(parse_amount("-7,5", fr), -7.5)

    def test_bad_amount_names_locale(self):
        with self.assertRaisesRegex(ValueError, "locale de"):
            parse_amount("zwölf", get_locale("de"))


if __name__ == "__main__":
    unittest.main()
