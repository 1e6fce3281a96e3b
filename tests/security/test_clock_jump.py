"""The wall clock steps (an NTP correction, a board whose RTC was wrong at boot) by an hour,
forward or back, in the middle of a live run or a replay: every duration recorded (each
step's phases, each task's and the run's wall time, the report's and the replay summary's)
comes from the monotonic clock and is unchanged; only the wall-clock stamps move.

The step is injected by patching time.time (the only wall clock the package reads for a
run; datetime.now serves the chat template's date string alone) once the first step is in
the trajectory, through the CLI in process.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path

import pytest

from edgeagent import cli
from edgeagent.rundir import open_run_db

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

HOUR_S = 3600.0
FLAGS = ["--max-new-tokens", "16", "--n-ctx", "4096", "--threads", "1"]
COMMANDS = {
    "run": ["run", "--suite", "smoke", "--max-steps", "3", "--headless", *FLAGS],
    "replay": ["replay", "--conversations", "2", *FLAGS],
}


class SteppedClock:
    """time.time that jumps by `jump_s` once the run's first step is in its trajectory."""

    def __init__(self, real: object, out: Path, jump_s: float) -> None:
        self.real, self.out, self.jump_s, self.offset = real, out, jump_s, 0.0

    def __call__(self) -> float:
        if not self.offset and any('"type": "step"' in p.read_text(errors="replace")
                                   for p in self.out.glob("*/trajectories/*.jsonl")):
            self.offset = self.jump_s  # the NTP step: from now on, and for good
        return self.real() + self.offset  # type: ignore[operator]


def _steps(run_dir: Path) -> list[dict]:
    db = open_run_db(run_dir)
    try:
        return [dict(r) for r in db.execute("SELECT * FROM steps ORDER BY t_start_ns")]
    finally:
        db.close()


def _walls(run_dir: Path) -> tuple[float, list[float]]:
    db = open_run_db(run_dir)
    try:
        run_ms = db.execute("SELECT wall_ms FROM runs").fetchone()[0]
        return run_ms, [r[0] for r in db.execute("SELECT wall_ms FROM tasks")]
    finally:
        db.close()


def _check_step(step: dict, bound_ms: float) -> None:
    """Each phase inside what the test measured, and equal to its monotonic edges."""
    for key in ("prefill_ms", "ttft_ms", "decode_ms", "tool_ms"):
        assert 0 <= step[key] <= bound_ms, (key, step[key])
    edges = (step["t_tool_end_ns"] - step["t_tool_start_ns"]) / 1e6
    assert step["tool_ms"] == pytest.approx(edges, abs=1.0)
    assert step["ttft_ms"] == pytest.approx(
        (step["t_first_token_ns"] - step["t_start_ns"]) / 1e6, abs=5.0)


@pytest.mark.parametrize("jump_s", [HOUR_S, -HOUR_S], ids=["forward", "back"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_clock_step_mid_run_changes_no_duration(
    command: str, jump_s: float, tiny_model_path: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, reliability,
) -> None:
    out = tmp_path / "runs"
    clock = SteppedClock(time.time, out, jump_s)
    reliability("faults", injected=1)
    reliability("fault_kinds", clock_step=1)
    monkeypatch.setattr(time, "time", clock)
    t0 = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main([*COMMANDS[command], "--model", str(tiny_model_path),
                         "--out", str(out)])
    bound_ms = (time.monotonic() - t0) * 1000
    monkeypatch.undo()
    assert code in (0, 1)  # the verdict's code: the tiny model resolves nothing
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    steps = _steps(run_dir)
    # the step really came mid-run: the wall stamps jump between two steps, by the hour
    gaps = [b["wall_start"] - a["wall_start"] for a, b in zip(steps, steps[1:], strict=False)]
    assert any(abs(g - jump_s) < 60 for g in gaps), gaps
    for step in steps:
        _check_step(step, bound_ms)
    run_ms, task_ms = _walls(run_dir)
    assert 0 < run_ms <= bound_ms and all(0 < t <= run_ms for t in task_ms)
    _check_reported(command, run_dir, bound_ms)
    reliability("faults", survived=1)


def _check_reported(command: str, run_dir: Path, bound_ms: float) -> None:
    """The durations the user reads: the report's run wall time and, for a replay, its
    summary's duration and latencies."""
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        assert cli.main(["report", str(run_dir), "--format", "json"]) == 0
    metrics = json.loads(report.getvalue())["metrics"]
    assert 0 < metrics["run_wall_s"]["value"] * 1000 <= bound_ms
    if command == "replay":
        summary = json.loads((run_dir / "result_summary.json").read_text())
        assert 0 < summary["duration_s"] * 1000 <= bound_ms
        assert all(0 <= v <= bound_ms for v in summary["latency_ms"].values()
                   if isinstance(v, (int, float)))
