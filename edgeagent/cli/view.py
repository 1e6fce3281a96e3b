"""`edgeagent view`: browse stored runs in the terminal (textual, imported only when used)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UserError
from ..tui.launch import tui_available


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "view", help="browse stored runs in the terminal (tasks, steps, charts, compare)",
        description="Browse past runs: pick a run, a task, a step; read the full action and "
        "observation with the step's numbers; compare two runs side by side.")
    p.add_argument("run_dir", nargs="?", type=Path, default=Path("runs"),
                   help="a run directory, or a folder of runs to pick from (default runs/)")
    p.add_argument("--compare", type=Path, metavar="RUN_DIR",
                   help="open run_dir and this run side by side")
    p.set_defaults(func=_cmd_view)


def _cmd_view(args: argparse.Namespace) -> int:
    if not tui_available():
        raise UserError('`edgeagent view` needs textual: pip install "textual>=1.0"')
    from ..tui.view import ViewApp, check_view_paths

    check_view_paths(args.run_dir, args.compare)
    ViewApp(args.run_dir, args.compare).run()
    return 0
