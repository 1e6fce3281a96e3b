"""python -m deploykit [--config PATH] [--host H] [--port N] ... TARGET"""

import argparse
import sys

from deploykit.config import load_settings
from deploykit.errors import ConfigError
from deploykit.plan import build_plan


def build_parser():
    p = argparse.ArgumentParser(prog="deploykit")
    p.add_argument("target")
    p.add_argument("--config", help="INI file (default deploykit.ini)")
    p.add_argument("--host")
    p.add_argument("--port", type=int)
    p.add_argument("--user")
    p.add_argument("--timeout", type=int)
    p.add_argument("--dry-run", action="store_true", default=None)
    return p


def main(argv, environ, out=None):
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings(args, environ)
    except ConfigError as exc:
        print(f"deploykit: {exc}", file=sys.stderr)
        return 2
    for step in build_plan(args.target, settings):
        print(step, file=out)
    return 0
