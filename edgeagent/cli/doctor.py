"""`edgeagent doctor`: what this machine can do for a run, and what to fix."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UserError


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor", help="what this machine can do for a run, and what to fix",
        description="Check Python and packages, the llama.cpp build (CPU features, GPU "
        "offload, the AMX crash risk), SQLite extension loading, models, memory and disk, "
        "power sources and Jetson board state; print each finding with its fix.")
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="read a copied or fixture sysfs tree instead of / for sensors and board")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--bandwidth", action="store_true",
                   help="also measure memory bandwidth with a streaming copy (a few seconds); "
                   "pass it to `report --bandwidth-gbs` for the decode roofline")
    p.set_defaults(func=_cmd_doctor)


def _cmd_doctor(args: argparse.Namespace) -> int:
    import json

    from ..doctor import as_json, render_text, run_checks

    if not args.root.is_dir():
        raise UserError(f"--root {args.root} is not a directory (give a sysfs tree, e.g. /)")
    findings = run_checks(args.root, bandwidth=args.bandwidth)
    print(json.dumps(as_json(findings), indent=2) if args.json else render_text(findings))
    return 0
