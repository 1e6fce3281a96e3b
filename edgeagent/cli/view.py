"""`edgeagent view`: browse stored runs in the terminal (textual, imported only when used)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UserError
from ..rundir import DB_FILE
from ..tui import tui_available


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "view", help="browse stored runs in the terminal (tasks, steps, charts, compare)",
        description="Browse past runs: pick a run, a task, a step; read the full action and "
        "observation with the step's numbers; compare two runs side by side. Without a "
        "terminal (a pipe, a CI log) it prints the run's report, or the comparison, instead.")
    p.add_argument("run_dir", nargs="?", type=Path, default=Path("runs"),
                   help="a run directory, a sweep directory, or a folder of runs (and "
                   "sweeps) to pick from (default runs/)")
    p.add_argument("--compare", type=Path, metavar="RUN_DIR",
                   help="open run_dir and this run side by side")
    p.set_defaults(func=_cmd_view)


def _cmd_view(args: argparse.Namespace) -> int:
    if not tui_available():
        raise UserError('`edgeagent view` needs textual: pip install "textual>=1.0"')
    from ..tui import ViewApp, check_view_paths

    check_view_paths(args.run_dir, args.compare)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _print_instead(args.run_dir, args.compare)
    ViewApp(args.run_dir, args.compare).run()
    return 0


def _print_instead(run_dir: Path, compare: Path | None) -> int:
    """No terminal to draw on: what the screen would show, as text (a screen drawn to a pipe
    would never end)."""
    if compare is not None:
        from ..results import compare_dirs

        print("edgeagent view: no terminal; printing `edgeagent compare` instead",
              file=sys.stderr)
        print(compare_dirs([run_dir, compare], None, "text", None))
        return 0
    from ..sweep import is_sweep_dir

    if is_sweep_dir(run_dir):
        from ..sweep import load_index, render_table, sweep_table

        print("edgeagent view: no terminal; printing the sweep's table instead",
              file=sys.stderr)
        print(render_table(sweep_table(load_index(run_dir)), "text"))
        return 0
    if not (run_dir / DB_FILE).is_file():
        raise UserError(f"`edgeagent view` needs a terminal to pick a run from {run_dir}; "
                        "without one, give a run directory (its report is printed) or use "
                        f"`edgeagent report {run_dir}/<run>`")
    from ..results import render

    print("edgeagent view: no terminal; printing `edgeagent report` instead", file=sys.stderr)
    print(render(run_dir, "text", None))
    return 0
