import unittest

from splitbill.receipt import receipt
from splitbill.settle import settle
from splitbill.share import split_cents
from splitbill.tip import add_tip


class TestSplit(unittest.TestCase):
    def test_leftover_goes_to_first(self):
        self.assertEqual(split_cents(1000, 3), [334, 333, 333])
        self.assertEqual(split_cents(1001, 3), [334, 334, 333])

    def test_even_split(self):
        self.assertEqual(split_cents(900, 3), [300, 300, 300])
        self.assertEqual(split_cents(5, 1), [5])

    def test_always_adds_up(self):
        for total in range(0, 250, 7):
            for people in range(1, 8):
                shares = split_cents(total, people)
                self.assertEqual(sum(shares), total, (total, people))
                self.assertLessEqual(max(shares) - min(shares), 1)

    def test_receipt_shares(self):
        lines = receipt([("pizza", 2000), ("salad", 1000)], ["ana", "ben", "cy"])
        self.assertEqual(lines[-3].split(), ["ana", "$10.00"])
        self.assertEqual(lines[-1].split(), ["cy", "$10.00"])


class TestUnchanged(unittest.TestCase):
    def test_rejects_no_people(self):
        with self.assertRaises(ValueError):
            split_cents(100, 0)

    def test_tip_and_settle(self):
        self.assertEqual(add_tip(8420, 15), 9683)
        self.assertEqual(settle({"ana": 500, "ben": 500}, ["ana", "ben"]), [])
