"""tinyq: an in-process job queue."""

from tinyq.job import Job
from tinyq.queue import JobQueue
from tinyq.worker import Worker

__all__ = ["Job", "JobQueue", "Worker"]
