"""`--repeats N` of `edgeagent run` and `edgeagent replay` (llama-bench's `-r`): the flag and
its checks, the group directory, the repetitions one after another in this process, Ctrl-C
between them, and the summary (results/repeats.py) printed and written as repeats.json."""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..rundir import DB_FILE
from .common import StopFlag

if TYPE_CHECKING:  # results loads when a repeated run starts, not when the CLI does
    from ..results import RepeatRun

REPEATS_HELP = ("run the same settings N times, one ordinary run directory each, under one "
                "group directory in --out with repeats.json: mean, sd and 95%% interval per "
                "metric (default 1). Always headless (no dashboard); not with --resume")


def add_repeats_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repeats", type=int, default=1, metavar="N", help=REPEATS_HELP)


def check_repeats(args: argparse.Namespace) -> None:
    """--repeats below 1, or above 1 with --resume (or replay's --isl): one-line user errors,
    before anything loads."""
    n = args.repeats
    if n < 1:
        raise UserError(f"--repeats {n}: give 1 or more (e.g. --repeats 3 runs the same "
                        "settings three times; leave it out for one run)")
    if n > 1 and getattr(args, "resume", None) is not None:
        raise UserError("--repeats cannot go with --resume: --resume continues one "
                        "interrupted run directory, --repeats makes new ones; resume each "
                        "repetition on its own, without --repeats")
    if n > 1 and getattr(args, "isl", False):
        raise UserError("--repeats goes with a replay, not --isl (the input lengths are the "
                        "same every time); drop --repeats")


def group_label(suite: str) -> str:
    """The group directory's label: the suite's name, or replay-<dataset> for a replay."""
    label = ("replay-" + Path(suite[len("replay:"):]).stem if suite.startswith("replay:")
             else Path(suite).name)
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label)[:60] or "run"


class RepeatStop(StopFlag):
    """Ctrl-C between and during repetitions. The first: the current run finishes, no other
    starts. The second: the current run stops after its step (as a single run's first
    Ctrl-C), marked interrupted. A third aborts at once. SIGTERM (a supervisor) starts at the
    second: the current run stops after its step. `requested` is what the run polls."""

    def __init__(self) -> None:
        super().__init__()
        self.no_more = False  # start no further repetition

    def press(self, signum: int) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.signum = self.signum or signum
        if self.no_more or signum == signal.SIGTERM:
            self.no_more = self.requested = True
            what = "stopping the current run after its step (Ctrl-C again to abort now)"
        else:
            self.no_more = True
            what = ("no further repetition: the current run finishes (Ctrl-C again to stop "
                    "it after its step)")
        name = "interrupt" if signum == signal.SIGINT else signal.Signals(signum).name
        print(f"\n{name}: {what}", file=sys.stderr, flush=True)

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        signal.signal(signal.SIGINT, lambda signum, frame: self.press(signum))
        signal.signal(signal.SIGTERM, lambda signum, frame: self.press(signum))


Once = Callable[[str, RepeatStop], "RepeatRun"]  # one repetition, its run directory in group


def run_repeats(n: int, out: str, label: str, command: str, as_json: bool, once: Once,
                stop: RepeatStop | None = None) -> int:
    """The repetitions, one after another, each an ordinary run directory in the group
    directory made in `out`; repeats.json rewritten after each; the summary printed at the
    end (one JSON object line with `as_json`). The worst of the repetitions' exit codes, or
    128 + the signal when Ctrl-C cut the group short."""
    from ..results import repeats_text, summarize_repeats, write_repeats
    from ..rundir import make_run_dir

    group = make_run_dir(Path(out), f"{label}-x{n}")
    if stop is None:
        stop = RepeatStop()
        stop.install()
    runs: list[RepeatRun] = []
    try:
        for i in range(n):
            if stop.no_more:
                break
            print(f"repeat {i + 1}/{n}: {group}", file=sys.stderr, flush=True)
            runs.append(_found(group, runs, once(str(group), stop)))
            write_repeats(summarize_repeats(group, command, n, runs, "running"))
            if runs[-1].status in ("interrupted", "aborted"):
                break
    except BaseException:
        _close_failed(group, command, n, runs)
        raise
    cut = len(runs) < n or any(r.status in ("interrupted", "aborted") for r in runs)
    summary = summarize_repeats(group, command, n, runs, "interrupted" if cut else "complete")
    path = write_repeats(summary)
    if as_json:
        print(json.dumps({"event": "Repeats", **summary.to_dict()}), flush=True)
    else:
        print(repeats_text(summary))
        print(f"repeats: {path}")
    return max(summary.exit_code, stop.exit_code) if cut else summary.exit_code


def _found(group: Path, runs: list[RepeatRun], run: RepeatRun) -> RepeatRun:
    """A repetition aborted before it told its run directory: the new one in the group."""
    from ..results import RepeatRun

    if run.run_dir is not None:
        return run
    known = {r.run_dir for r in runs}
    new = sorted(str(d) for d in group.iterdir() if (d / DB_FILE).is_file()
                 and str(d) not in known)
    return RepeatRun(new[-1], run.status, run.exit_code) if new else run


def _close_failed(group: Path, command: str, n: int, runs: list[RepeatRun]) -> None:
    """An error out of a repetition: the group's summary so far kept (status failed); an
    empty group directory removed, as a run refused before it started leaves none."""
    from ..results import summarize_repeats, write_repeats

    try:
        if not runs and not any(group.iterdir()):
            group.rmdir()
            return
        write_repeats(summarize_repeats(group, command, n, runs, "failed"))
    except Exception as exc:  # noqa: BLE001 - the original error is the one to report
        print(f"repeats.json not written: {exc}", file=sys.stderr)

