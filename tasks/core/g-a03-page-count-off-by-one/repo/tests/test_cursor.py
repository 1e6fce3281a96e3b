import unittest

from pager.cursor import BadCursor, after_cursor, decode_cursor, encode_cursor


class TestCursor(unittest.TestCase):
    def test_round_trip(self):
        for key in (7, "2024-05-01", [3, "b"]):
            self.assertEqual(decode_cursor(encode_cursor(key)), key)

    def test_bad_cursor(self):
        with self.assertRaises(BadCursor):
            decode_cursor("not-a-cursor!")

    def test_walk_all_pages(self):
        items = [{"id": i} for i in (5, 1, 4, 2, 3)]
        seen, cursor = [], None
        while True:
            page, cursor = after_cursor(items, lambda item: item["id"], 2, cursor)
            seen.extend(item["id"] for item in page)
            if cursor is None:
                break
        self.assertEqual(seen, [1, 2, 3, 4, 5])
