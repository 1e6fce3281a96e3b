"""Running jobs with their handlers, with retries."""

from tinyq.errors import QueueError


class Worker:
    def __init__(self, queue, handlers):
        self.queue = queue
        self.handlers = dict(handlers)
        self.done = []

    def run_one(self):
        job = self.queue.pop()
        handler = self.handlers.get(job.kind)
        if handler is None:
            raise QueueError(f"no handler for job kind {job.kind!r}")
        job.attempts += 1
        try:
            handler(job.payload)
        except Exception as exc:  # a handler failure is data, not a crash
            job.last_error = f"{type(exc).__name__}: {exc}"
            if job.attempts < job.max_attempts:
                self.queue.requeue(job)
            else:
                self.queue.failed.append(job)
            return False
        self.done.append(job)
        return True

    def run_until_empty(self, limit=10_000):
        ran = 0
        while len(self.queue) and ran < limit:
            self.run_one()
            ran += 1
        return ran
