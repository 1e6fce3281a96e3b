"""The queue: pending jobs in run order, plus the ones that failed for good."""

from collections import deque

from tinyq.errors import QueueError
from tinyq.job import Job


class JobQueue:
    def __init__(self):
        self._pending = deque()
        self._next_id = 1
        self.failed = []

    def push(self, kind, payload=None, max_attempts=3):
        """Add a job; returns it (its id is unique within this queue)."""
        if not kind:
            raise QueueError("job kind must not be empty")
        job = Job(self._next_id, kind, dict(payload or {}), max_attempts=max_attempts)
        self._next_id += 1
        self._pending.append(job)
        return job

    def requeue(self, job):
        """Put a job that will be retried back at the end of the queue."""
        self._pending.append(job)

    def pop(self):
        """The next job to run."""
        if not self._pending:
            raise QueueError("pop from an empty queue")
        return self._pending.popleft()

    def pending(self):
        """The pending jobs in the order they would run (the queue is not changed)."""
        return list(self._pending)

    def restore(self, jobs, next_id):
        """Replace the pending jobs (used by snapshot.load)."""
        self._pending = deque(jobs)
        self._next_id = next_id

    @property
    def next_id(self):
        return self._next_id

    def __len__(self):
        return len(self._pending)
