import unittest

from tasklog.search import find_by_id, search
from tasklog.stats import Progress, progress, progress_bar, progress_by_tag
from tasklog.store import parse_line

TASKS = [parse_line(line) for line in [
    "[ ] 1 buy milk #home",
    "[x] 2 write report #work",
    "[x] 3 fix bike #home",
    "[ ] 4 report expenses #work #money",
]]


class TestStats(unittest.TestCase):
    def test_progress(self):
        p = progress(TASKS)
        self.assertEqual((p.total, p.done, p.pending, p.percent), (4, 2, 2, 50))
        self.assertEqual(progress([]).percent, 100)

    def test_by_tag(self):
        self.assertEqual(progress_by_tag(TASKS), {
            "home": Progress(2, 1), "money": Progress(1, 0), "work": Progress(2, 1)})

    def test_bar(self):
        self.assertEqual(progress_bar(Progress(4, 1), 8), "[##......] 25%")


class TestSearch(unittest.TestCase):
    def test_words_and_prefixes(self):
        self.assertEqual([t.id for t in search(TASKS, "rep")], [2, 4])
        self.assertEqual([t.id for t in search(TASKS, "REPORT exp")], [4])
        self.assertEqual(len(search(TASKS, "")), 4)

    def test_tags(self):
        self.assertEqual([t.id for t in search(TASKS, "#home")], [1, 3])

    def test_find_by_id(self):
        self.assertEqual(find_by_id(TASKS, 3).title, "fix bike")
        self.assertIsNone(find_by_id(TASKS, 9))
