import unittest

from calc import add, multiply


class TestCalcHidden(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_add_more_cases(self):
        self.assertEqual(add(10, 7), 17)
        self.assertEqual(add(-4, 1), -3)
        self.assertEqual(add(0, 0), 0)
        self.assertAlmostEqual(add(0.5, 0.25), 0.75)

    def test_multiply_unchanged(self):
        self.assertEqual(multiply(4, 5), 20)


if __name__ == "__main__":
    unittest.main()
