"""The command line: python -m wordfreq [--top N] [--min-length N] [--ignore-case] FILE..."""

import argparse
import sys
from collections import Counter

from wordfreq.counting import count_words, top_words


def build_parser():
    parser = argparse.ArgumentParser(prog="wordfreq", description="Count frequent words.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="text files to read")
    parser.add_argument("--top", type=int, default=10, help="how many words to show")
    parser.add_argument("--min-length", default=1,
                        help="ignore words shorter than this many characters")
    parser.add_argument("--ignore-case", action="store_true",
                        help="count words case-insensitively")
    return parser


def main(argv=None, out=None):
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    total = Counter()
    for name in args.files:
        try:
            with open(name, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            print(f"wordfreq: cannot read {name}: {exc.strerror}", file=sys.stderr)
            return 2
        total.update(count_words(text, args.min_length, args.ignore_case))
    for word, count in top_words(total, args.top):
        print(f"{count}\t{word}", file=out)
    return 0
