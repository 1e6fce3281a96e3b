"""How the command line reaches the TUI, without importing textual until it is used."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TextIO

from ..config import RunConfig


def tui_available() -> bool:
    return importlib.util.find_spec("textual") is not None


def use_tui(*, headless: bool, json: bool, stream: TextIO | None = None) -> bool:
    """The dashboard opens only on a terminal, and never for --headless or --json."""
    stream = stream or sys.stdout
    return not headless and not json and stream.isatty() and tui_available()


def run_in_tui(config: RunConfig) -> int:
    """`edgeagent run` with the live dashboard; the same run, results and exit codes as the
    console printer. A user error raised inside the run is re-raised here, after the screen
    is restored, so it prints as one line like everywhere else."""
    from ..console import summary_lines, task_line
    from ..models import resolve_model
    from ..runner import execute_run
    from ..suite import load_suite, select_tasks
    from .app import DashboardApp

    # fail on a bad suite before a download, and show a first download's progress before
    # the screen takes the terminal; the run resolves the (now cached) model again
    select_tasks(load_suite(config.suite), config.tasks)
    resolve_model(config.model, progress=True)

    def start(sink, control):
        return execute_run(config, sinks=[sink], stop_requested=control, progress=False)

    app = DashboardApp(start)
    outcome = app.run()
    if outcome is None:
        outcome = app.outcome
    if outcome.error is not None:
        raise outcome.error
    if outcome.aborted or outcome.result is None:
        print("aborted; the steps completed so far are kept in the run directory",
              file=sys.stderr)
        return 130
    finished = app.state.finished
    for record in outcome.result.tasks:
        print(task_line(record))
    if finished is not None:
        for line in summary_lines(finished, str(outcome.result.run_dir)):
            print(line)
    return 130 if outcome.result.status == "interrupted" else 0


def add_view_parser(sub: argparse._SubParsersAction) -> None:
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
    from ..errors import UserError

    if not tui_available():
        raise UserError('`edgeagent view` needs textual: pip install "textual>=1.0"')
    from .view import ViewApp, check_view_paths

    check_view_paths(args.run_dir, args.compare)
    ViewApp(args.run_dir, args.compare).run()
    return 0
