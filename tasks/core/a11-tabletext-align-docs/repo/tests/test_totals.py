import unittest

from tabletext.totals import column_sum, with_totals


class TestTotals(unittest.TestCase):
    def test_with_totals(self):
        rows = [{"item": "tea", "qty": 12, "note": "x"}, {"item": "coffee", "qty": 3, "note": ""}]
        self.assertEqual(with_totals(rows)[-1], {"item": "total", "qty": 15, "note": None})
        self.assertEqual(with_totals([]), [])

    def test_column_sum(self):
        self.assertEqual(column_sum([{"a": 1.5}, {"a": None}, {"a": 2}], "a"), 3.5)
        with self.assertRaisesRegex(ValueError, "non-number"):
            column_sum([{"a": "1"}], "a")
