import unittest

from colpick.where import BadCondition, filter_rows, parse_condition

ROWS = [["name", "age", "city"], ["Ana", "31", "Porto"], ["Bo", "25", "Oslo"],
        ["Cy", "40", "oslo"]]


class TestWhere(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_condition("city=Oslo"), ("city", "=", "Oslo"))
        self.assertEqual(parse_condition("age!=31"), ("age", "!=", "31"))
        with self.assertRaises(BadCondition):
            parse_condition("city")

    def test_filters(self):
        self.assertEqual(list(filter_rows(ROWS, ["city=Oslo"])), [ROWS[0], ROWS[2]])
        self.assertEqual(list(filter_rows(ROWS, ["city~OSLO", "age!=25"])), [ROWS[0], ROWS[3]])
        self.assertEqual(list(filter_rows([], ["a=b"])), [])

    def test_unknown_column(self):
        with self.assertRaisesRegex(BadCondition, "no column 'town'"):
            list(filter_rows(ROWS, ["town=Oslo"]))
