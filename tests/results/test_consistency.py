"""Speed consistency inside a run (results/consistency.py): a step far slower than the run's
own speed at its context is flagged by hyperfine's modified Z-score, a run whose steps slow
down with the context is not, too few steps are not checked; `edgeagent report` shows it."""

from __future__ import annotations

import json
import math
import random
import re
import sqlite3
from pathlib import Path
from statistics import median
from typing import Any

import pytest
from cli_run import run_cli
from run_fixture import step, task, write_run

from edgeagent.results.consistency import (
    OUTLIER_THRESHOLD,
    consistency_text,
    modified_z,
    speed_consistency,
)
from edgeagent.results.metrics import RunData
from edgeagent.rundir import Provenance


def _contexts() -> list[int]:
    """Most steps at small contexts, a few far out: a plain median would flag the far ones."""
    return [500 + 20 * i for i in range(25)] + [7000 + 200 * i for i in range(5)]


def _rows(contexts: list[int], *, slow: dict[int, float] | None = None,
          decoded: int = 33, prefilled: int = 200) -> list[dict[str, Any]]:
    """Step rows whose time per token grows with the context (2% jitter, seeded); `slow`
    multiplies a step's decode time."""
    rng = random.Random(7)
    rows = []
    for i, ctx in enumerate(contexts):
        tpot = (40 + 0.01 * ctx) * (1 + rng.uniform(-0.02, 0.02))
        per_prefill = (5 + 0.002 * ctx) * (1 + rng.uniform(-0.02, 0.02))
        rows.append({"task_id": f"t{i // 10}", "attempt": 0, "step": i % 10,
                     "context_tokens": ctx, "decoded_tokens": decoded,
                     "decode_ms": tpot * (decoded - 1) * (slow or {}).get(i, 1.0),
                     "prefill_tokens": prefilled, "prefill_ms": per_prefill * prefilled,
                     "spec_drafted": None})
    return rows


def _data(rows: list[dict[str, Any]]) -> RunData:
    return RunData(label="r", run_dirs=("r",), runs=(), provenance=Provenance(), config={},
                   tasks=(), steps=tuple(rows), samples=())


def test_a_step_four_times_slower_is_flagged_with_its_ratio() -> None:
    result = speed_consistency(_data(_rows(_contexts(), slow={12: 4.0})))
    decode = result.decode
    assert (decode.checked, decode.slow, decode.fast) == (30, 1, 0)
    worst = decode.worst
    assert worst is not None
    assert (worst.task_id, worst.step, worst.context_tokens) == ("t1", 2, 740)
    assert 3.6 < worst.ratio < 4.4 and worst.z > OUTLIER_THRESHOLD
    assert (result.prefill.checked, result.prefill.slow) == (30, 0)
    line = consistency_text(result)
    assert line.startswith("speed consistency: decode 1 of 30 steps slower than the run's own "
                           "speed at their context (worst: task t1 step 3, context 740, ")
    assert f"> {OUTLIER_THRESHOLD:.1f})" in line and "; prefill 0 of 30" in line


def test_time_growing_with_the_context_is_not_flagged_thanks_to_the_fit() -> None:
    rows = _rows(_contexts())
    result = speed_consistency(_data(rows))
    for phase in (result.decode, result.prefill):
        assert (phase.model, phase.slow, phase.fast) == ("Theil-Sen line", 0, 0)
    assert 9 < result.decode.slope_ms_per_ktok < 11  # 0.01 ms per token of context
    # against a plain median, the far-context steps would have been flagged
    tpots = [r["decode_ms"] / (r["decoded_tokens"] - 1) for r in rows]
    mid = median(tpots)
    assert max(modified_z([math.log(t / mid) for t in tpots])) > OUTLIER_THRESHOLD


def test_a_faster_step_is_counted_apart_and_is_not_the_worst() -> None:
    result = speed_consistency(_data(_rows(_contexts(), slow={3: 0.25})))
    assert (result.decode.slow, result.decode.fast, result.decode.worst) == (0, 1, None)
    assert "decode 0 of 30 steps" in consistency_text(result) and ", 1 faster" in \
        consistency_text(result)


def test_equal_contexts_fall_back_to_the_median() -> None:
    result = speed_consistency(_data(_rows([1000] * 8, slow={5: 3.0})))
    assert (result.decode.model, result.decode.slow) == ("median", 1)


def test_too_few_steps_are_not_checked_with_the_reason() -> None:
    rows = _rows([500, 600, 700, 800]) + _rows([900, 1000], decoded=4, prefilled=8)
    result = speed_consistency(_data(rows))
    for phase in (result.decode, result.prefill):
        assert phase.slow is None and phase.worst is None and phase.checked == 4
    assert result.decode.not_checked == "4 steps with >= 8 decoded tokens; 5 needed"
    assert "decode not checked (4 steps" in consistency_text(result)
    assert "prefill not checked (4 steps with >= 16 prefilled tokens; 5 needed)" in \
        consistency_text(result)


def test_speculative_steps_are_left_out_of_decode() -> None:
    rows = [{**r, "spec_drafted": 10} for r in _rows(_contexts())]
    decode = speed_consistency(_data(rows)).decode
    assert decode.not_checked == ("0 steps with >= 8 decoded tokens left after 30 speculative "
                                  "ones; 5 needed")


def _crafted_run(run_dir: Path) -> Path:
    """Two tasks of ten steps each through the real store, decode time growing with context."""
    tasks, t = [], 0.0
    for name in ("a", "b"):
        steps = []
        for i in range(10):
            ctx = 400 + 300 * i
            tpot = (0.040 + 0.00001 * ctx) * (1 + 0.01 * ((i * 7) % 5 - 2))
            steps.append(step(name, i, other=t, start=t, ttft=0.3, prefill_ms=250,
                              decode=round(tpot * 20, 4), tool=0.1, ctx=ctx,
                              reused=max(0, ctx - 100), decoded=21, energy=(1, 1, 1, 1)))
            t += 2.0
        tasks.append((task(name, steps, outcome="resolved", wall_s=20, energy_j=40), steps))
    return write_run(run_dir, tasks)


@pytest.mark.slow
def test_report_shows_a_doctored_slow_step(tmp_path: Path) -> None:
    run_dir = _crafted_run(tmp_path / "run")
    code, out, _ = run_cli("report", str(run_dir))
    assert code == 0
    assert "speed consistency: decode 0 of 20 steps slower than the run's own speed" in out
    db = sqlite3.connect(run_dir / "run.db")
    with db:  # task b's 8th step decodes 5x slower, as if another process took the cores
        db.execute("UPDATE steps SET decode_ms = decode_ms * 5 WHERE task_id = 'b' AND step = 7")
    db.close()
    code, out, _ = run_cli("report", str(run_dir))
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("speed consistency:"))
    assert "decode 1 of 20 steps slower than the run's own speed at their context (worst: task " \
           "b step 8, context 2500, " in line
    assert 4.5 < float(re.search(r"ms/token, ([\d.]+)x, modified z", line)[1]) < 5.5
    assert "prefill 0 of 20" in line
    code, out, _ = run_cli("report", str(run_dir), "--format", "json")
    report = json.loads(out)
    assert report["speed_consistency"]["decode"]["slow"] == 1
    assert report["speed_consistency"]["decode"]["worst"]["step"] == 7
    assert line in report["validity"]["notes"]  # a note beside the verdict, not a reason
    assert not any("speed" in r for r in report["validity"]["reasons"])
    code, out, _ = run_cli("report", str(run_dir), "--format", "html")
    assert "speed consistency: decode 1 of 20 steps" in out
