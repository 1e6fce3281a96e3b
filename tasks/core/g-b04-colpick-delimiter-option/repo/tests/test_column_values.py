import unittest

from colpick.pick import UnknownColumn, column_values

ROWS = [["name", "city"], ["Ana", "Porto"], ["Bo", "Oslo"], ["Cy", "Porto"]]


class TestColumnValues(unittest.TestCase):
    def test_values(self):
        self.assertEqual(column_values(ROWS, "city"), ["Porto", "Oslo", "Porto"])
        self.assertEqual(column_values(ROWS, "city", distinct=True), ["Porto", "Oslo"])
        self.assertEqual(column_values([], "city"), [])

    def test_unknown(self):
        with self.assertRaises(UnknownColumn):
            column_values(ROWS, "town")
