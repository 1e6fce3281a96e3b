import unittest

from isbnkit.catalogue import check_lines

FILE = """# spring order
978-0-306-40615-7  Signal Processing
0-306-40615-2

9780306406157 duplicate
0-306-40615-3 typo
"""


class TestCatalogue(unittest.TestCase):
    def test_check_lines(self):
        problems, isbns = check_lines(FILE)
        self.assertEqual(isbns, ["9780306406157", "0306406152"])
        self.assertEqual(problems, [
            "line 5: 9780306406157 is listed twice",
            "line 6: '0-306-40615-3' is not a valid ISBN",
        ])

    def test_empty(self):
        self.assertEqual(check_lines(""), ([], []))
