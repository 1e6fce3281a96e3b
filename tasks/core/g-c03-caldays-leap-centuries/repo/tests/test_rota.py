import unittest

from caldays.rota import add_days, assign, every, next_weekday


class TestRota(unittest.TestCase):
    def test_add_days(self):
        self.assertEqual(add_days((2024, 2, 28), 1), (2024, 2, 29))
        self.assertEqual(add_days((2024, 1, 1), -1), (2023, 12, 31))

    def test_every(self):
        self.assertEqual(every((2024, 1, 30), 1, 3), [(2024, 1, 30), (2024, 1, 31), (2024, 2, 1)])

    def test_skip_weekends(self):
        # 2024-06-07 is a Friday; the next two dates fall on Sunday and Tuesday.
        dates = every((2024, 6, 7), 2, 3, skip_weekends=True)
        self.assertEqual(dates, [(2024, 6, 7), (2024, 6, 10), (2024, 6, 11)])

    def test_next_weekday(self):
        self.assertEqual(next_weekday((2024, 7, 4), 0), (2024, 7, 8))
        self.assertEqual(next_weekday((2024, 7, 4), 3), (2024, 7, 4))
        with self.assertRaises(ValueError):
            next_weekday((2024, 7, 4), 7)

    def test_assign(self):
        pairs = assign(["ana", "ben"], every((2024, 1, 1), 7, 3))
        self.assertEqual([name for _, name in pairs], ["ana", "ben", "ana"])
        with self.assertRaises(ValueError):
            assign([], [])
