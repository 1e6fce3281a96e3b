import unittest

from series import squares, sum_to


class TestSeries(unittest.TestCase):
    def test_sum_to(self):
        self.assertEqual(sum_to(3), 6)

    def test_squares(self):
        self.assertEqual(squares(3), [1, 4, 9])


if __name__ == "__main__":
    unittest.main()
