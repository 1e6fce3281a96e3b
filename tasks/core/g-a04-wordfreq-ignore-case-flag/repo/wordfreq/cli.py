"""The wordfreq command line."""

import argparse
from pathlib import Path

from .core import count_words, top


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="wordfreq", description="Count word frequencies.")
    p.add_argument("files", nargs="+", type=Path)
    p.add_argument("--top", type=int, default=10, help="how many words to print")
    p.add_argument("--ignore-case", action="store_true", help="count 'The' and 'the' together")
    p.add_argument("--min-length", type=int, default=1, help="skip shorter words")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    text = "\n".join(f.read_text(encoding="utf-8") for f in args.files)
    counts = count_words(text)
    counts = +type(counts)({w: c for w, c in counts.items() if len(w) >= args.min_length})
    for word, count in top(counts, args.top):
        print(f"{word} {count}")
    return 0
