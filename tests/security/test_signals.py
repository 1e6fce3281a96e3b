"""SIGTERM and Ctrl-C (SIGINT) in the middle of each long-running command, as a subprocess on
the tiny model: the exit code says which signal (128 + it), the last line says what happened
and how to go on, nothing committed is lost, and `--resume` completes where the command has it.

Ctrl-C goes to the whole process group, as a terminal sends it; SIGTERM to the process
alone, as `kill`, `docker stop` and most supervisors send it. tests/run/test_run_tiny.py
covers the records of an interrupted run, tests/sweep/test_sweep_resume.py Ctrl-C in a sweep;
here: run's resume, replay, sweep on SIGTERM, serve and index.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from edgeagent import cli
from edgeagent.rundir import open_run_db
from edgeagent.suite import suites_root

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

EDGEAGENT = Path(sys.executable).with_name("edgeagent")
SIGNALS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]
IDS = ["ctrl-c", "sigterm"]
ENGINE = ["--max-new-tokens", "16", "--n-ctx", "4096", "--threads", "1"]


class Command:
    """One edgeagent subprocess, its output in files, in its own process group."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.err_path, self.out_path = cwd / "stderr.txt", cwd / "stdout.txt"
        with open(self.out_path, "w") as so, open(self.err_path, "w") as se:
            self.proc = subprocess.Popen([str(EDGEAGENT), *argv], stdout=so, stderr=se,
                                         cwd=cwd, start_new_session=True,
                                         env={**os.environ, **(env or {})})

    def wait_for(self, ready: Callable[[], object], timeout_s: float = 90) -> object:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = ready()
            if found:
                return found
            assert self.proc.poll() is None, f"ended early: {self.stderr()}"
            time.sleep(0.02)
        self.proc.kill()
        raise AssertionError(f"not ready within {timeout_s} s: {self.stderr()}")

    def signal(self, signum: int) -> int:
        """Ctrl-C to the group (a terminal's), SIGTERM to the process; the exit code."""
        try:
            if signum == signal.SIGINT:
                os.killpg(self.proc.pid, signum)
            else:
                self.proc.send_signal(signum)
            return self.proc.wait(timeout=90)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    def last_line(self) -> str:
        text = self.stderr()
        assert "Traceback" not in text, text
        return text.strip().splitlines()[-1]


def _first_step(out: Path) -> Callable[[], Path | None]:
    """The run directory once its first step is in its trajectory (so committed)."""
    def ready() -> Path | None:
        for path in out.glob("*/trajectories/*.jsonl"):
            if '"type": "step"' in path.read_text(errors="replace"):
                return path.parent.parent
        return None
    return ready


def _steps(run_dir: Path) -> dict[tuple[str, int, int], tuple]:
    db = open_run_db(run_dir)
    try:
        return {(r[0], r[1], r[2]): tuple(r[3:]) for r in db.execute(
            "SELECT task_id, attempt, step, decoded_tokens, prefill_ms, tool_ms FROM steps")}
    finally:
        db.close()


def _status(run_dir: Path) -> str:
    db = open_run_db(run_dir)
    try:
        return db.execute("SELECT status FROM runs").fetchone()[0]
    finally:
        db.close()


def _quiet(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cli.main(argv)


@pytest.mark.parametrize(("signum", "code"), SIGNALS, ids=IDS)
def test_run_stopped_then_resumed(signum: int, code: int, tiny_model_path: Path,
                                  tmp_path: Path, reliability) -> None:
    config = tmp_path / "long.yaml"
    config.write_text("max_format_errors: 1000\n")
    out = tmp_path / "runs"
    reliability("faults", injected=1)
    reliability("fault_kinds", signal=1)
    cmd = Command(["run", "--config", str(config), "--model", str(tiny_model_path), "--suite",
                   "smoke", "--out", str(out), "--max-steps", "8", "--headless", *ENGINE],
                  tmp_path)
    run_dir = cmd.wait_for(_first_step(out))
    assert cmd.signal(signum) == code, cmd.stderr()
    assert cmd.last_line() == f"interrupted; continue with: edgeagent run --resume {run_dir}"
    assert _status(run_dir) == "interrupted"
    before = _steps(run_dir)
    assert _quiet(["run", "--resume", str(run_dir), "--threads", "1", "--headless"]) in (0, 1)
    after = _steps(run_dir)
    assert _status(run_dir) == "complete"
    assert before and all(after.get(k) == v for k, v in before.items())  # none lost
    reliability("faults", survived=1)


def _slow_dataset(tmp_path: Path, delay_s: float = 1.0) -> Path:
    """The bundled smoke workload with every tool wait `delay_s`: long enough to stop
    midway."""
    rows = [json.loads(line) for line in
            (suites_root() / "replay" / "smoke.jsonl").read_text().splitlines() if line]
    for row in rows:
        if "delay_seconds" in row:
            row["delay_seconds"] = delay_s
    path = tmp_path / "slow.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(("signum", "code"), SIGNALS, ids=IDS)
def test_replay_stopped(signum: int, code: int, tiny_model_path: Path, tmp_path: Path,
                        reliability) -> None:
    out = tmp_path / "runs"
    reliability("faults", injected=1)
    reliability("fault_kinds", signal=1)
    cmd = Command(["replay", str(_slow_dataset(tmp_path)), "--inject-tool-delay", "--model",
                   str(tiny_model_path), "--out", str(out), *ENGINE], tmp_path)
    run_dir = cmd.wait_for(_first_step(out))
    assert cmd.signal(signum) == code, cmd.stderr()
    assert cmd.last_line().startswith(f"interrupted; the turns completed so far are kept in "
                                      f"{run_dir}")
    assert _status(run_dir) == "interrupted"
    steps = _steps(run_dir)
    lines = [json.loads(x) for p in (run_dir / "trajectories").glob("*.jsonl")
             for x in p.read_text().splitlines()]
    assert steps and {(r["task_id"], r["attempt"], r["step"]) for r in lines
                      if r["type"] == "step"} == set(steps)  # each turn in both, whole
    summary = json.loads((run_dir / "result_summary.json").read_text())
    assert summary["run_status"] == "interrupted" and summary["turns_completed"] == len(steps)
    reliability("faults", survived=1)


def test_sweep_stopped_by_sigterm_then_resumed(tiny_kv_model_path: Path, tmp_path: Path,
                                               reliability) -> None:
    """SIGTERM to the sweep alone (docker stop): it is passed on to the run in progress."""
    out = tmp_path / "sweeps"
    reliability("faults", injected=1)
    reliability("fault_kinds", signal=1)
    cmd = Command(["sweep", str(_slow_dataset(tmp_path, 0.4)), "--inject-tool-delay", "--model",
                   str(tiny_kv_model_path), "--conversations", "1", "--out", str(out),
                   *ENGINE], tmp_path)

    def running() -> Path | None:
        for path in out.glob("*/runs/*/trajectories/*.jsonl"):
            if '"type": "step"' in path.read_text(errors="replace"):
                return path.parents[3]
        return None

    sweep = cmd.wait_for(running)
    assert cmd.signal(signal.SIGTERM) == 143, cmd.stderr()
    assert cmd.last_line() == f"interrupted; continue with: edgeagent sweep --resume {sweep}"
    index = json.loads((sweep / "sweep.json").read_text())
    assert index["status"] == "interrupted"
    (cut,) = [r["run_dir"] for c in index["configurations"] for r in c["runs"]]
    assert _status(sweep / cut) == "interrupted"  # the child stopped too, its steps kept
    kept = _steps(sweep / cut)
    assert _quiet(["sweep", "--resume", str(sweep)]) == 0
    index = json.loads((sweep / "sweep.json").read_text())
    assert index["status"] == "complete"
    assert _steps(sweep / cut) == kept  # superseded, not overwritten
    reliability("faults", survived=1)


@pytest.mark.parametrize(("signum", "code"), SIGNALS, ids=IDS)
def test_serve_stopped(signum: int, code: int, tiny_model_path: Path, tmp_path: Path,
                       reliability) -> None:
    """Stopping is how a server ends: exit 0, the run `complete`, every request a step."""
    out = tmp_path / "runs"
    reliability("faults", injected=1)
    reliability("fault_kinds", signal=1)
    cmd = Command(["serve", "--model", str(tiny_model_path), "--port", "0", "--out", str(out),
                   "--n-ctx", "4096", "--threads", "1"], tmp_path)
    url = cmd.wait_for(lambda: next((w for w in cmd.stderr().split()
                                     if w.startswith("http://")), None))
    body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    for _ in range(2):
        request = urllib.request.Request(f"{url}/chat/completions", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 200
        # the agent's own time between requests: a request sent the instant the previous
        # response arrives can overtake that step's recording (a serve race, reported apart)
        time.sleep(0.3)
    assert cmd.signal(signum) == 0, cmd.stderr()
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    assert cmd.last_line() == f"stopped: 2 requests recorded in {run_dir}"
    assert _status(run_dir) == "complete" and len(_steps(run_dir)) == 2
    reliability("faults", survived=1)


@pytest.mark.parametrize(("signum", "code"), SIGNALS, ids=IDS)
def test_index_stopped_mid_build(signum: int, code: int, tmp_path: Path,
                                 reliability) -> None:
    """No half-built index is left to be taken for a whole one next time."""
    from edgeagent.retrieval import unavailable_reason

    if unavailable_reason() is not None:
        pytest.skip(f"retrieval unavailable: {unavailable_reason()}")
    repo, cache = tmp_path / "repo", tmp_path / "indexes"
    repo.mkdir()
    for i in range(40):  # ~1,600 chunks: many seconds of embedding on a small CPU
        (repo / f"m{i}.py").write_text("".join(
            f"def f{i}_{j}(x):\n    return x * {j} + {i}  # step {j}\n\n" for j in range(40)))
    reliability("faults", injected=1)
    reliability("fault_kinds", signal=1)
    cmd = Command(["index", str(repo), "--threads", "1"], tmp_path,
                  env={"EDGEAGENT_INDEX_DIR": str(cache)})
    cmd.wait_for(lambda: list(cache.glob("*.tmp")))  # the build has begun
    assert cmd.signal(signum) == code, cmd.stderr()
    assert cmd.last_line() == (f"interrupted: the index of {repo} was not finished and "
                               "nothing was cached; run the command again")
    assert list(cache.iterdir()) == []  # neither the partial build nor a cached index
    reliability("faults", survived=1)
