import unittest

from ledgerly.amounts import parse_amount
from ledgerly.locales import get_locale


class TestAmounts(unittest.TestCase):
    def test_english(self):
        self.assertEqual(parse_amount("1,234.56", get_locale("en")), 1234.56)

    def test_currency_symbol(self):
        self.assertEqual(parse_amount("$-5.00", get_locale("en")), -5.0)

    def test_bad_amount(self):
        with self.assertRaises(ValueError):
            parse_amount("abc", get_locale("en"))


if __name__ == "__main__":
    unittest.main()
