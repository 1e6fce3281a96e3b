import io
import os
import tempfile
import unittest

from tinyq import JobQueue, Worker, snapshot
from tinyq.cli import main


class TestQueue(unittest.TestCase):
    def test_fifo(self):
        q = JobQueue()
        for kind in ("a", "b", "c"):
            q.push(kind)
        self.assertEqual([q.pop().kind for _ in range(3)], ["a", "b", "c"])

    def test_retries_then_failed(self):
        q = JobQueue()
        q.push("boom", max_attempts=2)

        def boom(payload):
            raise RuntimeError("nope")

        Worker(q, {"boom": boom}).run_until_empty()
        self.assertEqual(len(q.failed), 1)
        self.assertEqual(q.failed[0].attempts, 2)

    def test_snapshot_round_trip(self):
        q = JobQueue()
        q.push("a", {"x": 1})
        q.push("b")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "q.json")
            snapshot.save(q, path)
            q2 = snapshot.load(path)
            out = io.StringIO()
            self.assertEqual(main(["status", path], out), 0)
        self.assertEqual([j.kind for j in q2.pending()], ["a", "b"])
        self.assertEqual(q2.push("c").id, 3)
        self.assertIn("2 pending", out.getvalue())


if __name__ == "__main__":
    unittest.main()
