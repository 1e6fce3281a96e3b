"""How the command line reaches the TUI, without importing textual until it is used."""

from __future__ import annotations

import importlib.util
import signal
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


def run_in_tui(config: RunConfig, resume_dir: Path | None = None) -> int:
    """`edgeagent run` with the live dashboard; the same run, results and exit codes as the
    console printer. A user error raised inside the run is re-raised here, after the screen
    is restored, so it prints as one line like everywhere else."""
    from ..console import resume_hint, run_verdict, summary_lines, task_line
    from ..models import resolve_model
    from ..run import execute_run
    from ..suite import load_suite, select_tasks
    from .app import DashboardApp

    # fail on a bad suite before a download, and show a first download's progress before
    # the screen takes the terminal; the run resolves the (now cached) model again
    select_tasks(load_suite(config.suite), config.tasks)
    resolve_model(config.model, progress=True)

    def start(sink, control):
        return execute_run(config, sinks=[sink], stop_requested=control, progress=False,
                           resume_dir=resume_dir)

    app = DashboardApp(start)
    # SIGTERM (systemd, docker stop, CI) stops safely as `q` does; the keys cover Ctrl-C
    signals: list[int] = []

    def on_term(signum: int, frame: object) -> None:
        signals.append(signum)
        app.control.request_stop()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        outcome = app.run()
    finally:
        signal.signal(signal.SIGTERM, previous)
    if outcome is None:
        outcome = app.outcome
    if outcome.error is not None:
        raise outcome.error
    code = 128 + (signals[0] if signals else signal.SIGINT)  # 130, or 143 for SIGTERM
    if outcome.aborted or outcome.result is None:
        print("aborted; the steps completed so far are kept in the run directory"
              + resume_hint(app.state.run_dir), file=sys.stderr)
        return code
    run_dir = outcome.result.run_dir
    for record in outcome.result.tasks:
        print(task_line(record))
    lines, verdict_code = run_verdict(run_dir)
    print("\n".join(lines))
    if app.state.finished is not None:
        for line in summary_lines(app.state.finished, str(run_dir)):
            print(line)
    if outcome.result.status == "interrupted":
        print(f"interrupted{resume_hint(str(run_dir))}", file=sys.stderr)
        return code
    return verdict_code  # as `edgeagent check` gives it, like the headless path
