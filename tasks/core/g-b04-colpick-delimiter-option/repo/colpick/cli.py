"""python -m colpick FILE --columns a,b [--delimiter D] [--no-header]"""

import argparse
import csv
import sys

from colpick.pick import UnknownColumn, pick


def build_parser():
    parser = argparse.ArgumentParser(prog="colpick")
    parser.add_argument("file")
    parser.add_argument("--columns", required=True, help="comma-separated header names")
    parser.add_argument("--delimiter", default=",", help="field separator (default ',')")
    parser.add_argument("--no-header", action="store_true", help="do not print the header")
    return parser


def main(argv, out=None):
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    wanted = [c.strip() for c in args.columns.split(",") if c.strip()]
    writer = csv.writer(out, delimiter=args.delimiter, lineterminator="\n")
    try:
        with open(args.file, newline="", encoding="utf-8") as f:
            for n, row in enumerate(pick(csv.reader(f), wanted)):
                if n == 0 and args.no_header:
                    continue
                writer.writerow(row)
    except OSError as exc:
        print(f"colpick: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnknownColumn as exc:
        print(f"colpick: {exc}", file=sys.stderr)
        return 2
    return 0
