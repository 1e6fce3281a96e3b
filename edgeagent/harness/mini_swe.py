"""Run the real mini-swe-agent on one task: the parent side of mini_swe_host.py.

mini-swe-agent runs in a child process (`python -m edgeagent.harness.mini_swe_host SPEC`):
its imports (litellm: seconds, hundreds of MB) and its process-wide settings stay out of
ours, and a hard wall time can kill it anywhere, even mid-command or mid-model-call, where
its own wall_time_limit_seconds (checked between steps only) cannot.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..sandbox import ProcessLimits, kill_session
from .mini_swe_host import private_config_dir

INSTALL_HINT = "pip install 'edgeagent[mini-swe-agent]'"
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # holds edgeagent/, for the child's path
_LOG_TAIL_BYTES = 4096
_ERROR_CHARS = 500
_CANCEL_POLL_S = 0.1  # how often a run that may be cancelled looks at its flag


@dataclass(frozen=True)
class MiniSweSpec:
    """One mini-swe-agent run, as SPEC.json for the host (see mini_swe_host.load_spec)."""

    base_url: str  # e.g. http://127.0.0.1:PORT/v1
    model_name: str  # the served name
    issue: str  # the task text
    workdir: str | Path  # the task's sandboxed workspace
    step_limit: int  # model calls; 0 = none
    wall_s: float  # mini-swe-agent's own limit, checked between steps; 0 = none
    command_timeout_s: float
    process_limits: ProcessLimits | Mapping[str, Any]  # ProcessLimits fields
    trajectory_path: str | Path
    result_path: str | Path
    config: str = "default"  # "default": default.yaml, text; "mini": mini.yaml, tool calls
    temperature: float = 0.0
    seed: int | None = 42

    def to_json(self) -> dict[str, Any]:
        limits = self.process_limits
        fields = dataclasses.asdict(limits) if isinstance(limits, ProcessLimits) else dict(limits)
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["process_limits"] = {k: list(v) if isinstance(v, tuple) else v
                                  for k, v in fields.items()}
        for key in ("workdir", "trajectory_path", "result_path"):
            data[key] = os.fspath(data[key])
        return data


@dataclass(frozen=True)
class MiniSweResult:
    exit_status: str  # Submitted, LimitsExceeded, TimeExceeded, ... or an exception's class
    submission: str
    n_calls: int | None  # model calls; None when unknown (no result and no trajectory)
    commands: int | None  # commands run in the sandbox; None when unknown
    error: str | None  # one line, None when the agent ended normally
    timed_out: bool  # killed at timeout_s
    returncode: int | None  # the host process's (negative: killed by that signal)
    log_path: Path  # the host's stdout and stderr
    cancelled: bool = False  # killed because run_mini_swe_agent's `cancel` was set


def mini_swe_available() -> str | None:
    """None when mini-swe-agent can be imported, else one line saying how to fix it.
    Checked without importing it: that import costs seconds and touches ~/.config."""
    if importlib.util.find_spec("minisweagent") is None:
        return f"mini-swe-agent is not installed: {INSTALL_HINT}"
    if importlib.util.find_spec("litellm") is None:
        return f"mini-swe-agent is installed without litellm: {INSTALL_HINT}"
    try:
        version = importlib.metadata.version("mini-swe-agent")
    except importlib.metadata.PackageNotFoundError:
        return None  # importable from a source tree; nothing to compare
    if not version.startswith("2."):
        # 1.x's Environment.execute takes a command string, not an action dict
        return f"mini-swe-agent {version} is installed, edgeagent needs 2.4.6: {INSTALL_HINT}"
    return None


def side_paths(spec: MiniSweSpec) -> tuple[Path, Path]:
    """(SPEC.json, log) beside the trajectory."""
    traj = Path(spec.trajectory_path)
    return traj.with_name(traj.stem + ".spec.json"), traj.with_name(traj.stem + ".log")


def run_mini_swe_agent(spec: MiniSweSpec, *, timeout_s: float,
                       cancel: threading.Event | None = None) -> MiniSweResult:
    """Run mini-swe-agent on spec.issue; its process group is killed after timeout_s, or as
    soon as `cancel` is set (another thread: the run's step limit, Ctrl-C)."""
    spec_path, log_path = side_paths(spec)
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    result_path = Path(spec.result_path)
    result_path.unlink(missing_ok=True)  # an old result must not pass for this run's
    spec_path.write_text(json.dumps(spec.to_json(), indent=2), encoding="utf-8")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "edgeagent.harness.mini_swe_host", str(spec_path)],
            cwd=spec_path.parent, env=_child_env(), stdin=subprocess.DEVNULL,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            stopped = _wait(proc, timeout_s, cancel)
        except BaseException:  # Ctrl-C here must not leave the agent running
            _kill_group(proc)
            raise
        if stopped is not None:
            _kill_group(proc)
            # the host's own cleanup did not run
            shutil.rmtree(private_config_dir(Path(spec.trajectory_path)), ignore_errors=True)
    return _read_result(spec, log_path, proc.returncode, stopped, timeout_s)


def _wait(proc: subprocess.Popen[bytes], timeout_s: float,
          cancel: threading.Event | None) -> str | None:
    """None once the host exits by itself; "timeout" or "cancel" when it is to be killed."""
    deadline = time.monotonic() + timeout_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout"
        if cancel is not None and cancel.is_set():
            return "cancel"
        try:
            proc.wait(timeout=remaining if cancel is None else min(remaining, _CANCEL_POLL_S))
            return None
        except subprocess.TimeoutExpired:
            continue


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # edgeagent importable in the child from any cwd, installed or run from a checkout
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(_PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"  # the log keeps up with a run that is killed
    return env


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the host's process group and every descendant (a sandboxed command has its
    own session, so the group alone would miss it)."""
    kill_session(proc.pid)
    proc.wait()


def _read_result(spec: MiniSweSpec, log_path: Path, returncode: int | None,
                 stopped: str | None, timeout_s: float) -> MiniSweResult:
    timed_out, cancelled = stopped == "timeout", stopped == "cancel"
    try:
        data = json.loads(Path(spec.result_path).read_text(encoding="utf-8"))
        return MiniSweResult(
            exit_status=str(data["exit_status"]), submission=str(data.get("submission") or ""),
            n_calls=int(data["n_calls"]), commands=int(data["commands"]),
            error=None if data.get("error") is None else str(data["error"]),
            timed_out=timed_out, returncode=returncode, log_path=log_path, cancelled=cancelled)
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no (or no readable) result: say what happened instead
    if timed_out:
        status, error = "TimeExceeded", f"killed after {timeout_s:g} s (the hard wall time)"
    elif cancelled:
        status, error = "Cancelled", "killed: the caller cancelled the run"
    else:
        status = "HostError"
        error = f"mini_swe_host exited with code {returncode} and no result"
        last = _last_log_line(log_path)
        if last:
            error = f"{error}: {last}"
    return MiniSweResult(
        exit_status=status, submission="", n_calls=_calls_from_trajectory(spec),
        commands=None, error=error[:_ERROR_CHARS], timed_out=timed_out,
        returncode=returncode, log_path=log_path, cancelled=cancelled)


def _calls_from_trajectory(spec: MiniSweSpec) -> int | None:
    # mini-swe-agent rewrites the trajectory after every step; a kill mid-write spoils it
    try:
        data = json.loads(Path(spec.trajectory_path).read_text(encoding="utf-8"))
        return int(data["info"]["model_stats"]["api_calls"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _last_log_line(log_path: Path) -> str:
    try:
        with open(log_path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - _LOG_TAIL_BYTES))
            tail = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1] if lines else ""
