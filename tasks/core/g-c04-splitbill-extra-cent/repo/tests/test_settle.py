import unittest

from splitbill.settle import balances, settle


class TestSettle(unittest.TestCase):
    def test_balances(self):
        self.assertEqual(balances({"ana": 6000}, ["ana", "ben", "cy"]),
                         {"ana": 4000, "ben": -2000, "cy": -2000})

    def test_leftover_cents(self):
        owed = balances({"ana": 100}, ["ana", "ben", "cy"])
        self.assertEqual(owed, {"ana": 66, "ben": -33, "cy": -33})
        self.assertEqual(sum(owed.values()), 0)

    def test_transfers(self):
        self.assertEqual(settle({"ana": 6000, "ben": 0}, ["ana", "ben", "cy"]),
                         [("ben", "ana", 2000), ("cy", "ana", 2000)])

    def test_already_even(self):
        self.assertEqual(settle({"ana": 500, "ben": 500}, ["ana", "ben"]), [])

    def test_unknown_payer(self):
        with self.assertRaisesRegex(ValueError, "not in the group"):
            settle({"zed": 100}, ["ana"])
