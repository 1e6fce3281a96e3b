import argparse
import sys

from mdtoc.render import toc


def main(argv=None):
    parser = argparse.ArgumentParser(prog="mdtoc")
    parser.add_argument("file")
    parser.add_argument("--max-level", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        print(f"mdtoc: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    print(toc(text, args.max_level))
    return 0


if __name__ == "__main__":
    sys.exit(main())
