import unittest

from tabletext import render

ROWS = [{"item": "tea", "qty": 12}, {"item": "coffee", "qty": 3}]


class TestAlign(unittest.TestCase):
    def test_numbers_right_by_default(self):
        self.assertEqual(
            render(ROWS), "item   | qty\n-------+----\ntea    |  12\ncoffee |   3"
        )

    def test_explicit_center(self):
        out = render([{"name": "a", "x": "bb"}], align={"name": "center"})
        self.assertEqual(out.splitlines()[2], " a   | bb")

    def test_unknown_alignment(self):
        with self.assertRaises(ValueError):
            render(ROWS, align={"qty": "middle"})

    def test_override_numeric_left(self):
        out = render(ROWS, align={"qty": "left"})
        self.assertEqual(out.splitlines()[3], "coffee | 3")
        self.assertEqual(out.splitlines()[2], "tea    | 12")


class TestBasics(unittest.TestCase):
    def test_text_left(self):
        self.assertEqual(render([{"k": "v", "w": "long"}]).splitlines()[2], "v | long")

    def test_columns_order(self):
        self.assertEqual(render(ROWS, columns=["qty", "item"]).splitlines()[0][:3], "qty")
