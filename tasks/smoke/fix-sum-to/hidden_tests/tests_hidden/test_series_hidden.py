import unittest

from series import squares, sum_to


class TestSeriesHidden(unittest.TestCase):
    def test_sum_to(self):
        self.assertEqual(sum_to(3), 6)

    def test_sum_to_more_cases(self):
        self.assertEqual(sum_to(1), 1)
        self.assertEqual(sum_to(10), 55)
        self.assertEqual(sum_to(0), 0)

    def test_squares_unchanged(self):
        self.assertEqual(squares(3), [1, 4, 9])


if __name__ == "__main__":
    unittest.main()
