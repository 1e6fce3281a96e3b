"""logtools command line."""

import argparse
import re
from pathlib import Path

from .dedupe import dedupe
from .levels import level_counts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="logtools")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dedupe")
    d.add_argument("file", type=Path)
    d.add_argument("--ignore-timestamps", action="store_true")
    g = sub.add_parser("grep")
    g.add_argument("pattern")
    g.add_argument("file", type=Path)
    s = sub.add_parser("stats")
    s.add_argument("file", type=Path)
    args = p.parse_args(argv)
    lines = args.file.read_text(encoding="utf-8").splitlines()
    if args.cmd == "dedupe":
        out = dedupe(lines, args.ignore_timestamps)
    elif args.cmd == "grep":
        rx = re.compile(args.pattern)
        out = [line for line in lines if rx.search(line)]
    else:
        out = [f"{level} {n}" for level, n in sorted(level_counts(lines).items())]
    print("\n".join(out))
    return 0
