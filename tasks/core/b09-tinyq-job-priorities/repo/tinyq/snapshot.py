"""Saving and loading the pending jobs as JSON."""

import json

from tinyq.errors import QueueError
from tinyq.job import Job
from tinyq.queue import JobQueue

VERSION = 1


def dump(queue):
    return {
        "version": VERSION,
        "next_id": queue.next_id,
        "pending": [job.to_dict() for job in queue.pending()],
    }


def save(queue, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dump(queue), f, indent=2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise QueueError(f"{path}: cannot read snapshot: {exc}") from None
    if data.get("version") != VERSION:
        raise QueueError(f"{path}: unsupported snapshot version {data.get('version')!r}")
    queue = JobQueue()
    queue.restore([Job.from_dict(j) for j in data["pending"]], data["next_id"])
    return queue
