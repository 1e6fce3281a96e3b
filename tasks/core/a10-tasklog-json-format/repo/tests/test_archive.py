import tempfile
import unittest
from pathlib import Path

from tasklog import store
from tasklog.archive import archive, next_id_with_archive, split_done


class TestArchive(unittest.TestCase):
    def test_archive_moves_done_tasks(self):
        with tempfile.TemporaryDirectory() as tmp:
            tasks_file, archive_file = Path(tmp) / "t.txt", Path(tmp) / "old.txt"
            tasks_file.write_text("[ ] 1 buy milk\n[x] 2 write report #work\n", encoding="utf-8")
            self.assertEqual(archive(tasks_file, archive_file), 1)
            self.assertEqual(tasks_file.read_text(encoding="utf-8"), "[ ] 1 buy milk\n")
            self.assertEqual(archive_file.read_text(encoding="utf-8"),
                             "[x] 2 write report #work\n")
            self.assertEqual(archive(tasks_file, archive_file), 0)
            self.assertEqual(next_id_with_archive(store.load(tasks_file), archive_file), 3)

    def test_split_done(self):
        tasks = [store.Task(1, "a", True), store.Task(2, "b")]
        self.assertEqual(split_done(tasks), ([tasks[1]], [tasks[0]]))
