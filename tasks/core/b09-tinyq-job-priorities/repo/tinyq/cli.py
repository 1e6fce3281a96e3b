"""python -m tinyq status SNAPSHOT"""

import argparse
import sys

from tinyq import snapshot
from tinyq.errors import QueueError


def format_job(job):
    return f"#{job.id:<4} {job.kind:<12} attempts={job.attempts}/{job.max_attempts}"


def main(argv, out=None):
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="tinyq")
    sub = parser.add_subparsers(dest="command", required=True)
    status = sub.add_parser("status", help="list pending jobs in run order")
    status.add_argument("snapshot")
    args = parser.parse_args(argv)
    try:
        queue = snapshot.load(args.snapshot)
    except QueueError as exc:
        print(f"tinyq: {exc}", file=sys.stderr)
        return 2
    for job in queue.pending():
        print(format_job(job), file=out)
    print(f"{len(queue)} pending", file=out)
    return 0
