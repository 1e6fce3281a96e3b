import unittest

from splitbill.history import History
from splitbill.receipt import receipt


class TestHistory(unittest.TestCase):
    def setUp(self):
        self.history = History()
        self.history.add("dinner", "ana", 9000, ["ana", "ben"])
        self.history.add("taxi", "ben", 2400, ["ben", "cy", "ana"])
        self.history.add("museum", "ana", 3000, ["ana", "cy"])

    def test_paid_by(self):
        self.assertEqual(self.history.paid_by("ana"), 12000)
        self.assertEqual(self.history.paid_by("cy"), 0)

    def test_largest_and_members(self):
        self.assertEqual(self.history.largest().title, "dinner")
        self.assertEqual(self.history.members(), ["ana", "ben", "cy"])
        self.assertIsNone(History().largest())

    def test_validation(self):
        with self.assertRaisesRegex(ValueError, "not in people"):
            self.history.add("lunch", "zed", 100, ["ana"])
        with self.assertRaisesRegex(ValueError, "must not be negative"):
            self.history.add("refund", "ana", -1, ["ana"])


class TestReceiptHeader(unittest.TestCase):
    def test_items_tip_and_total(self):
        lines = receipt([("pizza", 2000), ("salad", 1000)], ["ana", "ben"], percent=10)
        self.assertEqual(lines[0].split(), ["pizza", "$20.00"])
        self.assertEqual(lines[2].split(), ["subtotal", "$30.00"])
        self.assertEqual(lines[3].split(), ["tip", "10%", "$3.00"])
        self.assertEqual(lines[4].split(), ["total", "$33.00"])
        self.assertEqual(len(lines), 7)
