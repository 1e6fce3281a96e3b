"""The filesystem under the task workspaces turns read-only in the middle of a task (a disk
error remounts ext4 so; an SD card that fails does the same): the task ends at once as a
recorded `sandbox_error` saying why, with its committed steps kept, and the run goes on to
the next tasks, each of which is recorded too (its workspace cannot be made), and completes.

Where the machine allows it, the workspaces (TMPDIR) are on a tmpfs in a private mount
namespace that is remounted read-only after the first step (fs_fault.py); elsewhere EROFS is
injected at the OS calls the run makes on it (statvfs reports it read-only, mkdtemp fails).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import sys
import tempfile
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
SMOKE = ("fix-add", "fix-shout", "fix-sum-to")


def _argv(tmp_path: Path, model: Path, out: Path) -> list[str]:
    config = tmp_path / "long.yaml"  # steps go on despite the tiny model's format errors
    config.write_text("max_format_errors: 1000\n")
    return ["run", "--config", str(config), "--model", str(model), "--out", str(out),
            *RUN_FLAGS]


def test_workspace_turns_read_only_mid_task(
    tiny_model_path: Path, tmp_path: Path, reliability, monkeypatch: pytest.MonkeyPatch,
    record_property: Callable[[str, object], None],
) -> None:
    out = tmp_path / "runs"
    mounted = fs_fault.count_injection(tmp_path, "read_only_workspace", reliability,
                                       record_property)
    if mounted:
        spec = {"mount": str(tmp_path / "workspaces"), "size": "64m", "fault": "read_only",
                "env": {"TMPDIR": str(tmp_path / "workspaces")}, "out": str(out),
                "save": str(tmp_path / "saved"), "timeout_s": 90,
                "argv": [str(EDGEAGENT), *_argv(tmp_path, tiny_model_path, out)]}
        first = fs_fault.run_faulted(spec, tmp_path, timeout_s=150)["first"]
        code, text, run_dir = first["code"], first["stderr"], Path(first["run_dir"])
        at_fault = {tuple(s) for s in first["steps_at_fault"]}
    else:
        code, text, run_dir = _inject_erofs(tmp_path, tiny_model_path, out, monkeypatch)
        at_fault = set()
    assert code in (0, 1) and "Traceback" not in text, text  # the verdict's exit code
    _check_run(run_dir, at_fault)
    reliability("faults", survived=1)


def _check_run(run_dir: Path, at_fault: set[tuple]) -> None:
    db = open_run_db(run_dir)
    try:
        status = db.execute("SELECT status FROM runs").fetchone()[0]
        tasks = {r["task_id"]: dict(r) for r in db.execute("SELECT * FROM tasks")}
        steps = {(r[0], r[1], r[2]) for r in db.execute(
            "SELECT task_id, attempt, step FROM steps")}
    finally:
        db.close()
    assert status == "complete"  # the run went on to the end
    assert set(tasks) == set(SMOKE)  # every task has its record
    cut = tasks["fix-add"]
    assert cut["termination"] == "sandbox_error" and cut["outcome"] == "error"
    assert "read-only" in cut["termination_detail"] and "read-only" in cut["error"]
    assert at_fault <= steps and cut["steps"] == len([s for s in steps if s[0] == "fix-add"])
    for task_id in SMOKE[1:]:  # the filesystem stays read-only: no workspace can be made
        rec = tasks[task_id]
        assert rec["termination"] == "sandbox_error", rec
        assert "cannot make a workspace" in rec["error"], rec["error"]
        assert os.strerror(errno.EROFS) in rec["error"], rec["error"]
    lines = {(r["task_id"], r["attempt"], r["step"])
             for p in (run_dir / "trajectories").glob("*.jsonl")
             for r in map(json.loads, p.read_text().splitlines()) if r["type"] == "step"}
    assert lines == steps  # each committed step has its trajectory line


def _inject_erofs(tmp_path: Path, model: Path, out: Path, monkeypatch: pytest.MonkeyPatch
                  ) -> tuple[int, str, Path]:
    """No mount namespace here: once the first step is recorded, statvfs reports the
    workspaces' filesystem read-only and making a workspace fails with EROFS."""
    workspaces = Path(tempfile.gettempdir()).resolve()

    def faulted() -> bool:
        return any('"type": "step"' in p.read_text(errors="replace")
                   for p in out.glob("*/trajectories/*.jsonl"))

    real_statvfs, real_mkdtemp = os.statvfs, tempfile.mkdtemp

    def statvfs(path: os.PathLike | str | int) -> os.statvfs_result:
        result = real_statvfs(path)
        if isinstance(path, (str, os.PathLike)) and "edgeagent-ws-" in str(path) and faulted():
            values = list(result)
            values[8] |= os.ST_RDONLY  # f_flag
            return os.statvfs_result(values)
        return result

    def mkdtemp(*args: object, **kwargs: object) -> str:
        if kwargs.get("prefix") == "edgeagent-ws-" and faulted():
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(workspaces))
        return real_mkdtemp(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "statvfs", statvfs)
    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    err, printed = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(printed):
        code = cli.main(_argv(tmp_path, model, out))
    monkeypatch.undo()
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return code, err.getvalue(), run_dir
