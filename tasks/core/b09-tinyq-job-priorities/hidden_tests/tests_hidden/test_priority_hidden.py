import io
import os
import tempfile
import unittest

from tinyq import JobQueue, Worker, snapshot
from tinyq.cli import main


class TestPriority(unittest.TestCase):
    def test_higher_priority_first_fifo_within(self):
        q = JobQueue()
        q.push("low1")
        q.push("high1", priority=5)
        q.push("low2")
        q.push("high2", priority=5)
        q.push("mid", priority=1)
        self.assertEqual([j.kind for j in q.pending()], ["high1", "high2", "mid", "low1", "low2"])
        self.assertEqual([q.pop().kind for _ in range(5)],
                         ["high1", "high2", "mid", "low1", "low2"])

    def test_negative_priority_runs_last(self):
        q = JobQueue()
        q.push("cleanup", priority=-1)
        q.push("normal")
        self.assertEqual(q.pop().kind, "normal")

    def test_job_records_priority(self):
        q = JobQueue()
        self.assertEqual(q.push("a", priority=2).priority, 2)
        self.assertEqual(q.push("b").priority, 0)

    def test_retry_keeps_priority_and_goes_behind_equals(self):
        q = JobQueue()
        q.push("flaky", priority=3)
        q.push("steady", priority=3)
        q.push("low")
        calls = []

        def flaky(payload):
            calls.append("flaky")
            if calls.count("flaky") == 1:
                raise RuntimeError("first try fails")

        def record(name):
            return lambda payload: calls.append(name)

        Worker(q, {"flaky": flaky, "steady": record("steady"), "low": record("low")}
               ).run_until_empty()
        self.assertEqual(calls, ["flaky", "steady", "flaky", "low"])

    def test_snapshot_keeps_priorities(self):
        q = JobQueue()
        q.push("low")
        q.push("high", priority=9)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "q.json")
            snapshot.save(q, path)
            q2 = snapshot.load(path)
            out = io.StringIO()
            main(["status", path], out)
        self.assertEqual([j.kind for j in q2.pending()], ["high", "low"])
        q2.push("higher", priority=10)
        q2.push("low2")
        self.assertEqual([j.kind for j in q2.pending()], ["higher", "high", "low", "low2"])
        first = out.getvalue().splitlines()[0]
        self.assertIn("high", first)
        self.assertIn("priority=9", first)


class TestUnchanged(unittest.TestCase):
    def test_fifo_without_priorities(self):
        q = JobQueue()
        for kind in "abcd":
            q.push(kind)
        self.assertEqual([q.pop().kind for _ in range(4)], list("abcd"))

    def test_old_snapshot_loads(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "old.json")
            with open(path, "w") as f:
                f.write('{"version": 1, "next_id": 3, "pending": ['
                        '{"id": 1, "kind": "a", "payload": {}, "attempts": 0,'
                        ' "max_attempts": 3, "last_error": null}]}')
            q = snapshot.load(path)
        self.assertEqual([j.kind for j in q.pending()], ["a"])
        self.assertEqual(q.push("b").id, 3)


if __name__ == "__main__":
    unittest.main()
