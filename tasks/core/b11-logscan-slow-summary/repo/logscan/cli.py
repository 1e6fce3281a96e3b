import argparse
import sys

from logscan.aggregate import summarize
from logscan.filters import by_status
from logscan.parse import parse_lines
from logscan.report import render


def main(argv, out=None):
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="logscan")
    parser.add_argument("log")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--status", help="only requests of a status class, e.g. 5xx")
    args = parser.parse_args(argv)
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            requests = list(parse_lines(f))
    except OSError as exc:
        print(f"logscan: cannot read {args.log}: {exc.strerror}", file=sys.stderr)
        return 2
    if args.status:
        requests = by_status(requests, args.status)
    print(render(summarize(requests, args.top)), file=out)
    return 0
