"""Disk full (ENOSPC) during a live `edgeagent run`, while writing run.db and while writing a
trajectory: the run ends with one line naming the file and the way on, every step committed
before the fault is still in run.db, and `edgeagent run --resume` completes once space is back.

Where the machine allows it (root, or user namespaces) the disk is a real one: a size-capped
tmpfs in a private mount namespace, filled to the last byte mid-run (fs_fault.py). Elsewhere
the error is injected at the OS call instead: SQLite's write (SQLITE_FULL) or the trajectory's
fsync (ENOSPC, where delayed allocation reports a full disk). Each test records which it used
(`injected_by` in the JUnit properties, and its count in the reliability table).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import fs_fault
import pytest

from edgeagent import cli
from edgeagent.rundir import open_run_db

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

EDGEAGENT = Path(sys.executable).with_name("edgeagent")
RUN_FLAGS = ["--suite", "smoke", "--max-steps", "6", "--max-new-tokens", "16", "--n-ctx",
             "4096", "--threads", "1", "--headless"]
FULL_MESSAGES = ("No space left on device", "database or disk is full")


def _long_config(tmp_path: Path) -> Path:
    config = tmp_path / "long.yaml"  # steps go on despite the tiny model's format errors
    config.write_text("max_format_errors: 1000\n")
    return config


def _rows(run_dir: Path) -> dict[tuple[str, int, int], tuple]:
    """Every committed step, keyed (task, attempt, step), with what it measured."""
    db = open_run_db(run_dir)
    try:
        return {(r[0], r[1], r[2]): tuple(r[3:]) for r in db.execute(
            "SELECT task_id, attempt, step, context_tokens, decoded_tokens, prefill_ms,"
            " decode_ms, tool_ms, action_name FROM steps")}
    finally:
        db.close()


def _run_state(run_dir: Path) -> tuple[str, list[tuple[str, int, str]], list[tuple[str, int]]]:
    db = open_run_db(run_dir)
    try:
        status = db.execute("SELECT status FROM runs").fetchone()[0]
        tasks = [tuple(r) for r in db.execute(
            "SELECT task_id, attempt, termination FROM tasks ORDER BY task_id, attempt")]
        superseded = [tuple(r) for r in db.execute("SELECT task_id, attempt FROM superseded")]
    finally:
        db.close()
    return status, tasks, superseded


def _check_error_line(stderr: str, target: str, run_dir: Path) -> None:
    assert "Traceback" not in stderr, stderr
    errors = [ln for ln in stderr.splitlines() if ln.startswith("edgeagent: error:")]
    assert len(errors) == 1, stderr
    line = errors[0]
    assert stderr.strip().splitlines()[-1] == line  # the last word is the reason
    assert any(m in line for m in FULL_MESSAGES), line
    named = str(run_dir / "run.db") if target == "run.db" else str(run_dir / "trajectories")
    assert named in line, line
    assert f"edgeagent run --resume {run_dir}" in line and "kept" in line, line


def _check_survived(after_fault: Path, after_resume: Path,
                    at_fault: set[tuple[str, int, int]]) -> None:
    """Nothing committed is lost; the resumed run finished every task once."""
    before, after = _rows(after_fault), _rows(after_resume)
    assert at_fault <= set(before)  # each step seen in a trajectory was committed
    assert before and all(after.get(key) == row for key, row in before.items())
    status, tasks, superseded = _run_state(after_resume)
    assert status == "complete"
    finished = {t for t, _, term in tasks if term != "interrupted"}
    assert finished == {"fix-add", "fix-shout", "fix-sum-to"}
    cut = {(t, a) for t, a, _ in before} - {(t, a) for t, a, term in tasks
                                            if term != "interrupted"}
    assert cut and cut <= set(superseded)  # the attempt the fault cut short is kept aside


@pytest.mark.parametrize("target", ["run.db", "trajectory"])
def test_disk_full_mid_run_then_resume(
    target: str, tiny_model_path: Path, tmp_path: Path, reliability,
    record_property: Callable[[str, object], None], monkeypatch: pytest.MonkeyPatch,
) -> None:
    mounted = fs_fault.count_injection(tmp_path, "disk_full", reliability, record_property)
    if mounted:
        after_fault, after_resume, at_fault = _fill_a_real_disk(target, tiny_model_path,
                                                                tmp_path)
    else:
        after_fault, after_resume, at_fault = _inject_at_the_os_call(
            target, tiny_model_path, tmp_path, monkeypatch)
    _check_survived(after_fault, after_resume, at_fault)
    reliability("faults", survived=1)


def _fill_a_real_disk(target: str, model: Path, tmp_path: Path
                      ) -> tuple[Path, Path, set[tuple[str, int, int]]]:
    """The run directory on an 8 MB tmpfs that fills up after the first step (run.db fails),
    or its trajectories/ on a second, full one (the trajectory fails, run.db does not)."""
    disk, save = tmp_path / "disk", tmp_path / "saved"
    spec = {
        "mount": str(disk), "size": "8m", "out": str(disk / "runs"), "save": str(save),
        "fault": "fill" if target == "run.db" else "fill_trajectories", "resume": True,
        "timeout_s": 90, "argv": [str(EDGEAGENT), "run", "--config", str(_long_config(tmp_path)),
                                  "--model", str(model), "--out", str(disk / "runs"),
                                  *RUN_FLAGS],
    }
    result = fs_fault.run_faulted(spec, tmp_path, timeout_s=220)
    first = result["first"]
    assert "run_dir" in first, first["stderr"]  # the fault was injected mid-run
    assert first["code"] == 2, first["stderr"]
    _check_error_line(first["stderr"], target, Path(first["run_dir"]))
    too_soon = result["resume_while_full"]  # refused in one line, nothing half done
    assert too_soon["code"] == 2 and "Traceback" not in too_soon["stderr"], too_soon["stderr"]
    (line,) = [x for x in too_soon["stderr"].splitlines() if x.startswith("edgeagent: error:")]
    assert any(m in line for m in FULL_MESSAGES) or "disk is full" in line, line
    assert str(first["run_dir"]) in line, line
    resume = result["resume"]
    assert resume["code"] in (0, 1) and "Traceback" not in resume["stderr"], resume["stderr"]
    at_fault = {tuple(s) for s in first["steps_at_fault"]}
    return save / "after_fault", save / "after_resume", at_fault


class _Armed:
    """The injected fault's switch: `after` writes of the target pass, then each fails."""

    def __init__(self, after: int) -> None:
        self.after, self.seen, self.on = after, 0, True

    def hit(self) -> bool:
        self.seen += 1
        return self.on and self.seen > self.after


def _inject_at_the_os_call(target: str, model: Path, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch
                           ) -> tuple[Path, Path, set[tuple[str, int, int]]]:
    armed = _Armed(after=1 if target == "run.db" else 2)  # task_started and step 0 pass
    if target == "run.db":
        class FullDisk(sqlite3.Connection):
            def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
                if sql.startswith("INSERT OR REPLACE INTO steps") and armed.hit():
                    raise sqlite3.OperationalError("database or disk is full")
                return super().execute(sql, *args)

        real_connect = sqlite3.connect
        monkeypatch.setattr(sqlite3, "connect",
                            lambda *a, **k: real_connect(*a, factory=FullDisk, **k))
    else:
        real_fsync = os.fsync

        def fsync(fd: int) -> None:
            if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl") and armed.hit():
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real_fsync(fd)

        monkeypatch.setattr(os, "fsync", fsync)
    out = tmp_path / "runs"
    code, text = _cli(["run", "--config", str(_long_config(tmp_path)), "--model", str(model),
                       "--out", str(out), *RUN_FLAGS])
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    assert code == 2, text
    _check_error_line(text, target, run_dir)
    after_fault = tmp_path / "after_fault"
    shutil.copytree(run_dir, after_fault)
    armed.on = False  # space is back
    code, text = _cli(["run", "--resume", str(run_dir), "--threads", "1", "--headless"])
    assert code in (0, 1) and "Traceback" not in text, text
    return after_fault, run_dir, set()


def _cli(argv: list[str]) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = cli.main(argv)
    return code, out.getvalue() + err.getvalue()
