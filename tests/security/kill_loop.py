"""SIGKILL a command at random points, over and over, resuming what each kill left: the loop
test_resume.py and test_kill_points.py share. After every kill the run directory's run.db must
open (its WAL replayed), every attempt's committed steps must be numbered 0..n-1 with no gap,
and no step ever seen committed may disappear."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from edgeagent.errors import StoreError
from edgeagent.rundir import open_run_db

Steps = set[tuple[str, int, int]]


def committed_steps(run_dir: Path) -> Steps | None:
    """The committed steps, or None before the run has its row (nothing to resume yet)."""
    if not (run_dir / "run.db").exists():
        return None
    try:
        db = open_run_db(run_dir)  # read-write: replays a WAL the kill left behind
    except StoreError:
        return None  # killed before the schema was written
    try:
        if db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0:
            return None
        steps = {(r[0], r[1], r[2]) for r in db.execute(
            "SELECT task_id, attempt, step FROM steps")}
    except sqlite3.Error:
        return None  # killed while the schema was being created
    finally:
        db.close()
    by_attempt: dict[tuple[str, int], list[int]] = {}
    for task, attempt, step in steps:
        by_attempt.setdefault((task, attempt), []).append(step)
    for numbers in by_attempt.values():  # every attempt's steps are 0..n-1, no gap
        assert sorted(numbers) == list(range(len(numbers)))
    return steps


@dataclass
class KillLoop:
    """`new`: the command that starts a fresh run under `out`; `resume(run_dir)`: the one
    that continues it. `run_dirs(out)`: the run directories a command made under `out`."""

    new: Sequence[str]
    resume: Callable[[Path], Sequence[str]]
    out: Path
    cwd: Path
    run_dirs: Callable[[Path], list[Path]] = lambda out: [p for p in out.glob("*") if p.is_dir()]
    steps_of: Callable[[Path], Steps | None] = committed_steps
    wait_s: tuple[float, float] = (0.5, 5.0)
    seed: int = 20261130
    kills: int = 0
    lost: int = 0
    committed: dict[Path, Steps] = field(default_factory=dict)  # run dir -> steps ever seen

    def run(self, kills: int, budget_s: float) -> None:
        rng = random.Random(self.seed)
        known: set[Path] = set()
        current: Path | None = None
        start = time.monotonic()
        while self.kills < kills and time.monotonic() - start < budget_s:
            proc = subprocess.Popen(self.new if current is None else self.resume(current),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    cwd=self.cwd, start_new_session=True)
            try:
                proc.wait(timeout=rng.uniform(*self.wait_s))
                finished = True
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the whole group, as a power cut would
                proc.wait()
                finished = False
                self.kills += 1
            stderr = proc.stderr.read().decode() if proc.stderr else ""
            proc.stderr and proc.stderr.close()
            if finished:
                assert proc.returncode in (0, 1), stderr  # 1: a finished run judged INVALID
            if current is None:
                fresh = [p for p in self.run_dirs(self.out) if p not in known]
                if not fresh:
                    continue  # killed before the run directory existed
                current = fresh[0]
                known.add(current)
            if not self.seen(current):
                current = None  # killed before the run was recorded: nothing to resume
                continue
            if finished:
                current = None  # complete: the next kills hit a fresh run

    def seen(self, run_dir: Path) -> bool:
        """Record what `run_dir` has committed now; False before it has a run."""
        steps = self.steps_of(run_dir)
        if steps is None:
            return False
        before = self.committed.setdefault(run_dir, set())
        self.lost += len(before - steps)
        before |= steps
        return True

    def finish_all(self, timeout_s: float = 120.0) -> None:
        """Resume every run the kills left to its end; it must exit 0 or 1 (INVALID)."""
        for run_dir in list(self.committed):
            done = subprocess.run(self.resume(run_dir), capture_output=True, text=True,
                                  cwd=self.cwd, timeout=timeout_s)
            assert done.returncode in (0, 1), done.stderr
            assert self.seen(run_dir)

