import unittest

from tabletext.shape import pick, rename, shorten, sort_rows

ROWS = [{"item": "green tea", "qty": 12}, {"item": "coffee", "qty": None},
        {"item": "cocoa", "qty": 3}]


class TestShape(unittest.TestCase):
    def test_pick_and_rename(self):
        self.assertEqual(pick(ROWS[:1], ["qty", "note"]), [{"qty": 12, "note": None}])
        self.assertEqual(rename(ROWS[:1], {"qty": "Quantity"}),
                         [{"item": "green tea", "Quantity": 12}])

    def test_sort_none_last(self):
        self.assertEqual([r["item"] for r in sort_rows(ROWS, "qty")],
                         ["cocoa", "green tea", "coffee"])
        self.assertEqual([r["item"] for r in sort_rows(ROWS, "qty", descending=True)],
                         ["green tea", "cocoa", "coffee"])

    def test_shorten(self):
        self.assertEqual(shorten(ROWS, 6)[0], {"item": "green~", "qty": 12})
        with self.assertRaises(ValueError):
            shorten(ROWS, 1)
