"""Running a sweep: each configuration x repeat is a normal run directory, made by a child
`edgeagent replay` (or `edgeagent run` for a live suite) with `--json`, one at a time.

A child process per run, not the engine reloaded in this one: each configuration starts from
a fresh process, so its peak RSS is its own and a setting that crashes llama.cpp ends one run,
not the sweep. The child's JSON events drive the progress bar and the index (sweep.json),
which is saved at every run's start and end.

Ctrl-C (or SIGTERM) reaches the child too (the terminal signals the whole process group; a
signal to this process alone is passed on at the child's next event): the child stops after
its current turn and records `interrupted`, and the sweep stops there. `--resume` then skips
every finished run, redoes an interrupted replay (a replay cannot be continued mid-way) and
continues an interrupted live run with `edgeagent run --resume`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..run import ended_status
from ..rundir import DB_FILE
from .grid import Configuration
from .sweep_index import RUNS_DIR, SweepIndex

LOGS_DIR = "logs"  # each child's stderr, under the sweep directory


@dataclass(frozen=True)
class Workload:
    """What every run of the sweep does: a replay dataset or a live suite, and how many
    turns (replay) or tasks (suite) one run has, for the progress bar."""

    kind: str  # replay | suite
    args: tuple[str, ...]  # the child's workload arguments (dataset, --conversations, ...)
    units: int  # assistant turns (replay) or tasks (suite) per run
    describe: dict[str, Any]  # for sweep.json: dataset and its sha256, or the suite

    @property
    def command(self) -> str:
        return "replay" if self.kind == "replay" else "run"


# config keys whose flag is a switch (store_true): given bare when true, left out when false
_SWITCHES = ("allow_interference",)


def setting_flags(settings: dict[str, Any]) -> list[str]:
    """Config keys and values -> the engine flags of `edgeagent run` / `replay`."""
    out = []
    for key, value in settings.items():
        if key == "grammar":
            if value is False:
                out.append("--no-grammar")
            continue
        if key in _SWITCHES:
            out += ["--" + key.replace("_", "-")] if value else []
            continue
        text = ("1" if value else "0") if isinstance(value, bool) else str(value)
        out += ["--" + key.replace("_", "-"), text]
    return out


def child_command(workload: Workload, base: dict[str, Any], settings: dict[str, Any],
                  out: Path, resume: Path | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "edgeagent.cli", workload.command]
    if resume is not None:  # a live run continued: its own config.yaml holds the rest
        return [*cmd, "--resume", str(resume), "--json", "--headless"]
    cmd += [*workload.args, "--json", "--out", str(out)]
    if workload.kind == "suite":
        cmd.append("--headless")
    return cmd + setting_flags({**base, **settings})


class SweepProgress:
    """A progress bar over every turn of every run on a terminal (rich, on stderr); one line
    per run either way, so a log of a sweep says what ran."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self._bar: Any = None
        self._task: Any = None
        if enabled and self.stream.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TimeRemainingColumn(), console=Console(file=self.stream),
                                 transient=True)
            self._task = self._bar.add_task("sweep", total=total)

    def __enter__(self) -> SweepProgress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def describe(self, text: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=text)

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, n)

    def line(self, text: str) -> None:
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)


def _entry(conf: dict[str, Any], repeat: int) -> dict[str, Any] | None:
    return next((r for r in conf.setdefault("runs", []) if r["repeat"] == repeat), None)


def _is_finished(index: SweepIndex, entry: dict[str, Any] | None) -> bool:
    return bool(entry and entry.get("status") == "complete" and entry.get("run_dir")
                and (index.path / entry["run_dir"] / DB_FILE).is_file())


@dataclass
class _Child:
    """What one child run reported."""

    run_dir: str | None = None
    status: str | None = None
    steps: int = 0


def _last_line(path: Path) -> str:
    try:
        lines = [x for x in path.read_text(errors="replace").splitlines() if x.strip()]
    except OSError:
        return ""
    return lines[-1].removeprefix("edgeagent: error: ") if lines else ""


@contextlib.contextmanager
def _child_process(cmd: Sequence[str], log: Path) -> Iterator[subprocess.Popen[str]]:
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                text=True, bufsize=1, env={**os.environ, "COLUMNS": "100"})
        try:
            yield proc
        except BaseException:
            # a second Ctrl-C here: the child got it too; give it a moment, then end it
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            if proc.poll() is None:
                proc.kill()
            raise
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()


def _run_child(index: SweepIndex, entry: dict[str, Any], cmd: Sequence[str], log: Path,
               progress: SweepProgress, stop: Callable[[], bool]) -> tuple[_Child, int]:
    child = _Child()
    forwarded = False
    with _child_process(cmd, log) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("event") if isinstance(event, dict) else None
            if kind == "RunStarted":
                child.run_dir = os.path.relpath(event["run_dir"], index.path)
                entry.update(run_dir=child.run_dir, status="running", started=time.time())
                index.save()
            elif kind == "StepRecord":
                child.steps += 1
                progress.advance()
            elif kind == "TaskRecord" and event.get("outcome") is not None and (
                    index.plan["workload"]["kind"] == "suite"):
                progress.advance()
            elif kind == "RunFinished":
                child.status = event.get("status")
            if stop() and not forwarded and proc.poll() is None:
                proc.send_signal(signal.SIGINT)  # a SIGTERM to us alone: pass it on
                forwarded = True
        code = proc.wait()
    return child, code


@contextlib.contextmanager
def sweep_running(index: SweepIndex) -> Iterator[None]:
    """The sweep's status in sweep.json: `running` while the block runs, what the block set on
    a normal end, and on an exception the status a run would record (ended_status: a second
    Ctrl-C is `interrupted`, anything else `failed`); saved however it ends."""
    index.status = "running"
    index.save()
    try:
        yield
    except BaseException as exc:
        index.status = ended_status(exc, stopped=False)
        raise
    finally:
        index.save()


def run_sweep(index: SweepIndex, configs: Sequence[Configuration], workload: Workload,
              base: dict[str, Any], repeats: int, *, stop: Callable[[], bool],
              progress_bar: bool = True) -> str:
    """Run every configuration's missing repeats; returns the sweep's status: complete,
    interrupted, or incomplete (a run failed)."""
    runs_dir = index.path / RUNS_DIR
    logs = index.path / LOGS_DIR
    runs_dir.mkdir(parents=True, exist_ok=True)
    logs.mkdir(exist_ok=True)
    todo = [(c, r) for c in configs if c.skipped is None for r in range(1, repeats + 1)]
    # turns for a replay (the bar moves per turn), tasks for a live suite
    with SweepProgress(len(todo) * workload.units, progress_bar) as progress:
        for n, (config, repeat) in enumerate(todo, start=1):
            conf = index.configuration(config.id)
            if conf.get("skipped"):
                continue  # refused by llama.cpp at an earlier repeat
            where = f"[{n}/{len(todo)}] {config.id} {config.label()} repeat {repeat}/{repeats}"
            entry = _entry(conf, repeat)
            if _is_finished(index, entry):
                progress.advance(workload.units)
                continue
            entry, resume_dir = _entry_to_run(index, conf, entry, repeat, workload, where,
                                              progress)
            progress.describe(f"{config.id} {config.label()} r{repeat}")
            cmd = child_command(workload, base, config.as_dict(), runs_dir, resume_dir)
            log = logs / f"{config.id}-r{repeat}.log"
            t0 = time.monotonic()
            child, code = _run_child(index, entry, cmd, log, progress, stop)
            if _record_child(index, conf, entry, child, code, log, stop, where, progress, t0):
                return "interrupted"
    done = all(_is_finished(index, _entry(index.configuration(c.id), r))
               for c, r in todo if not index.configuration(c.id).get("skipped"))
    return "complete" if done else "incomplete"


def _entry_to_run(index: SweepIndex, conf: dict[str, Any], entry: dict[str, Any] | None,
                  repeat: int, workload: Workload, where: str,
                  progress: SweepProgress) -> tuple[dict[str, Any], Path | None]:
    """The index entry the repeat runs under, and the run directory to resume: an unfinished
    live run is continued, an unfinished replay is superseded and redone."""
    resume_dir: Path | None = None
    if entry is not None:
        old = index.path / entry["run_dir"] if entry.get("run_dir") else None
        if workload.kind == "suite" and old is not None and (old / DB_FILE).is_file():
            resume_dir = old
            progress.line(f"{where}: resuming its {entry.get('status')} run "
                          f"{entry['run_dir']} (edgeagent run --resume)")
        else:
            conf.setdefault("superseded", []).append(
                {**entry, "why": f"{entry.get('status') or 'unfinished'} when the "
                 "sweep stopped; redone on resume (a replay cannot be continued)"})
            conf["runs"].remove(entry)
            progress.line(f"{where}: redoing it (its run "
                          f"{entry.get('run_dir') or '-'} ended "
                          f"{entry.get('status') or 'unfinished'})")
            entry = None
    if entry is None:
        entry = {"repeat": repeat, "run_dir": None, "status": "starting"}
        conf["runs"].append(entry)
        conf["runs"].sort(key=lambda r: r["repeat"])
    return entry, resume_dir


def _record_child(index: SweepIndex, conf: dict[str, Any], entry: dict[str, Any],
                  child: _Child, code: int, log: Path, stop: Callable[[], bool], where: str,
                  progress: SweepProgress, t0: float) -> bool:
    """The child's outcome in the index and on the progress line; True when the sweep stops
    here (the run was interrupted)."""
    entry["exit_code"] = code
    if child.run_dir is None and code == 2:
        # refused before the run began (llama.cpp would not make this context)
        conf["skipped"] = _last_line(log) or "the run refused these settings"
        conf["runs"].remove(entry)
        index.save()
        progress.line(f"{where}: skipped: {conf['skipped']}")
        return False
    entry["status"] = child.status or ("interrupted" if stop() else "failed")
    if entry["status"] == "failed":
        entry["why"] = _last_line(log) or f"exit code {code}; see {log}"
    index.save()
    progress.line(f"{where}: {entry['status']} ({child.steps} steps, "
                  f"{time.monotonic() - t0:.1f} s) {entry.get('run_dir') or ''}")
    return bool(stop() or entry["status"] == "interrupted")
