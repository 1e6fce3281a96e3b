"""Command line: python -m PKG [--settings FILE] COMMAND."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .core.errors import AppError
from .core.money import format_cents
from .settings import load_settings


def _load_rows(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def cmd_totals(args: argparse.Namespace) -> int:
    """Print the total of the 'amount' field of a JSON list of records."""
    settings = load_settings(args.settings)
    rows = _load_rows(args.file)
    total = sum(int(r["amount"]) for r in rows)
    print(f"{len(rows)} record(s), total {format_cents(total)}")
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    settings = load_settings(args.settings)
    for key, value in vars(settings).items():
        print(f"{key} = {value}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="PKG")
    p.add_argument("--settings", type=Path, help="INI file with a [PKG] section")
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("totals", help="sum the amounts of a JSON export")
    t.add_argument("file", type=Path)
    t.set_defaults(func=cmd_totals)
    s = sub.add_parser("settings", help="show the effective settings")
    s.set_defaults(func=cmd_settings)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except AppError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
