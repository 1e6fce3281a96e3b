"""`edgeagent check`: an MLPerf-style VALID / INVALID verdict on a run, with the reasons.

The one verdict: `run`, `replay`, `report` and `check` all print this one (docs/reports.md).
Three results: VALID; SMOKE when nothing failed but the run has fewer trajectories than the
reported latency percentile needs (a smoke check, not a result); INVALID when any of: the
run did not finish (interrupted, crashed, failed) or left tasks unrun; the harness errored
on a task (engine or sandbox, not the model's own mistakes); no task took a step; replay
turns were dropped; energy was requested but is missing; the CPU throttled (its clock fell
under load); other processes or steal took more than the threshold's share of the CPUs
during the model phases (results/interference.py: the timings and energy are then not
valid, the outcomes are). Exit codes: 0 VALID or SMOKE (1 for SMOKE with `--strict`), 1 INVALID.

An accuracy run's tasks are samples, correct or incorrect (outcomes.py): one the model could
not answer (context overflow) is a failed sample, as MLPerf counts it, not a harness error;
an engine error still makes the run INVALID.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..engine import SERVER_REFUSED_CONTEXT
from .consistency import consistency_lines
from .interference import interference_check
from .metrics import (
    HEADLINE_Q,
    RunData,
    is_estimated,
    load_run,
    min_samples_for,
    trajectory_bound,
)
from .outcomes import accuracy_note, harness_error, is_accuracy
from .tiers import (
    GRADED_TOTAL,
    GUIDED_TIER,
    termination_counts,
    terminations_text,
    tier_rows,
)

# throttling: process CPU above this (percent of one CPU) counts as "under load"
LOAD_CPU_PERCENT = 50.0
# a loaded sample whose clock is below this fraction of the loaded peak is a throttled one
THROTTLE_FRACTION = 0.85
# throttled only if such samples add up to this many seconds and this share of loaded time
THROTTLE_MIN_S = 5.0
THROTTLE_MIN_SHARE = 0.10
_MAX_SAMPLE_SPAN_NS = 1_000_000_000  # a sample stands for at most a second


@dataclass(frozen=True)
class Verdict:
    valid: bool  # VALID: a result
    reasons: tuple[str, ...]  # why INVALID
    notes: tuple[str, ...]  # checks that passed or could not be made, for the record
    smoke: str | None = None  # why this is a smoke check, not a result (too few samples)

    @property
    def result(self) -> str:
        return "INVALID" if self.reasons else "SMOKE" if self.smoke else "VALID"

    def exit_code(self, strict: bool = False) -> int:
        """0 VALID or SMOKE (a passed smoke check), 1 INVALID; `strict`: SMOKE is 1 too."""
        return 1 if self.reasons or (strict and self.smoke) else 0

    def to_dict(self) -> dict[str, Any]:
        return {"result": self.result, **asdict(self)}


def count_trajectories(n: int) -> str:
    return f"{n} {'trajectory' if n == 1 else 'trajectories'}"


def _status_reasons(data: RunData) -> list[str]:
    if not data.runs:
        return ["run never started (no run record)"]
    out = []
    for run in data.runs:
        status = run.get("status")
        if status == "interrupted":
            out.append(f"run {run['run_id']} interrupted before its end")
        elif status == "running":
            out.append(f"run {run['run_id']} ended without finishing (crash or kill)")
        elif status != "complete":
            why = run.get("failure_reason")
            out.append(f"run {run['run_id']} {status}: {why or 'no reason recorded'}")
        planned = json.loads(run.get("task_ids_json") or "[]")
        done = {t["task_id"] for t in data.tasks}
        missing = [t for t in planned if t not in done]
        if missing:
            out.append(f"{len(missing)} of {len(planned)} tasks not run: {', '.join(missing[:5])}"
                       + (" ..." if len(missing) > 5 else ""))
    return out


def _harness_reasons(data: RunData) -> list[str]:
    accuracy = is_accuracy(data)
    bad = [t for t in data.tasks if harness_error(t, accuracy)]
    return [f"task {t['task_id']} errored in the harness ({t['termination']}: "
            f"{(t.get('error') or 'no detail')[:120]})" for t in bad]


def _assumed_context_reasons(data: RunData) -> list[str]:
    """Tasks cut short by an endpoint whose window was smaller than the one the run assumed
    (the server does not report its own): the run did not measure what it was set up to."""
    model = data.provenance.model
    if not str(model.get("n_ctx_source") or "").startswith("assumed"):
        return []  # the window was the server's own: a refusal is a real context limit
    cut = [t for t in data.tasks if t["termination"] == "context_overflow"
           and SERVER_REFUSED_CONTEXT in (t.get("termination_detail") or "")]
    if not cut:
        return []
    return [f"{len(cut)} task(s) ended when the endpoint refused a prompt as longer than its "
            f"context, which is smaller than the n_ctx {model.get('n_ctx')} this run assumed "
            f"(the server does not report its own); first: {cut[0]['task_id']}: "
            f"{(cut[0].get('termination_detail') or '')[:300]}"]


def dropped_turns(data: RunData) -> int | None:
    """Dropped replay turns, from whichever record the run has (the replay's per-turn file,
    a dropped_turns column, a step flag, a task terminated by dropped turns); None when the
    run records none of them."""
    counts: list[int] = []
    if data.replay_dropped is not None:
        counts.append(data.replay_dropped)
    if any(t["termination"] == "dropped_turns" for t in data.tasks):
        counts.append(sum(1 for t in data.tasks if t["termination"] == "dropped_turns"))
    for table, rows in (("runs", data.runs), ("tasks", data.tasks)):
        if "dropped_turns" in data.extra_columns.get(table, ()):
            counts.append(sum(int(r.get("dropped_turns") or 0) for r in rows))
    cols = data.extra_columns.get("steps", ())
    for col in ("dropped", "dropped_reason"):
        if col in cols:
            counts.append(sum(1 for s in data.steps if s.get(col)))
    return max(counts) if counts else None


def energy_requested(data: RunData) -> bool:
    """A sensor was found, or the config asked for energy (a sensor root, an estimate,
    an idle baseline or require_energy)."""
    cfg = data.config
    total = data.provenance.power_total
    return bool(
        total or cfg.get("require_energy") or cfg.get("power_estimate_tdp")
        or (cfg.get("baseline_s") or 0) > 0 or cfg.get("power_root") not in (None, "", "/")
    )


def _energy_reasons(data: RunData) -> tuple[list[str], list[str]]:
    missing = [t for t in data.tasks if t.get("energy_j") is None]
    if not missing:
        if not data.tasks:
            return [], []
        if is_estimated(data):  # a CPU x TDP estimate is labelled as one, never "measured"
            total = data.provenance.power_total
            return [], [f"energy ESTIMATED for every task ({total.get('label') or 'estimate'}"
                        "; no power sensor, so not a measurement)"]
        return [], ["energy measured for every task"]
    why = sorted({t.get("energy_null_reason") or "no reason recorded" for t in missing})
    if energy_requested(data):
        return [f"energy requested but missing for {len(missing)} of {len(data.tasks)} tasks "
                f"({'; '.join(why)})"], []
    return [], [f"energy not measured ({'; '.join(why)}); not requested, so not a failure"]


def trajectories(data: RunData) -> int:
    """Trajectories a latency percentile rests on: tasks with at least one step (a task the
    harness ended before its first step has no trajectory)."""
    return sum(1 for t in data.tasks if (t.get("steps") or 0) > 0)


def _sample_reasons(data: RunData) -> tuple[list[str], list[str], str | None]:
    """(reasons, notes, smoke): too few trajectories make a smoke check, not a failure."""
    n = trajectories(data)
    need = min_samples_for(HEADLINE_Q)
    q = f"p{HEADLINE_Q * 100:g}"
    bound = trajectory_bound(data)
    if n == 0:
        return ["no trajectory recorded (no task took a step)"], [], None
    if n < need:
        return [], [], (f"{count_trajectories(n)}: a smoke check, "
                        f"not a result (a {q} latency result needs at least {need})")
    if bound.value is None:
        return [], [f"{q} from {count_trajectories(n)}; the early-stopping bound needs "
                    f"{bound.min_samples}, so it is not reported"], None
    return [], [f"{q} early-stopping bound from {count_trajectories(n)}"], None


def throttling(samples: Sequence[dict[str, Any]]) -> tuple[str | None, str]:
    """(reason if throttled, note): sustained CPU clock drop while this process is busy."""
    loaded: list[tuple[int, float, float | None]] = []
    for a, b in zip(samples, list(samples[1:]) + [None], strict=False):
        if a.get("cpu_mhz") is None or (a.get("cpu_percent") or 0) < LOAD_CPU_PERCENT:
            continue
        span = min(max(0, b["t_ns"] - a["t_ns"]), _MAX_SAMPLE_SPAN_NS) if b else 0
        loaded.append((span, a["cpu_mhz"], a.get("temp_c")))
    if len(loaded) < 10:
        return None, "throttling not checked (fewer than 10 loaded samples with a CPU clock)"
    clocks = sorted(mhz for _, mhz, _ in loaded)
    peak = clocks[int(0.9 * (len(clocks) - 1))]
    low = [(span, mhz, temp) for span, mhz, temp in loaded if mhz < THROTTLE_FRACTION * peak]
    loaded_s = sum(span for span, _, _ in loaded) / 1e9
    low_s = sum(span for span, _, _ in low) / 1e9
    if low and low_s >= THROTTLE_MIN_S and loaded_s and low_s / loaded_s >= THROTTLE_MIN_SHARE:
        temps = [t for _, _, t in low if t is not None]
        hot = f"; max temperature {max(temps):.0f} C" if temps else ""
        low_mhz = sorted(m for _, m, _ in low)[len(low) // 2]
        return (f"throttling: CPU clock under load fell below {THROTTLE_FRACTION:.0%} of its "
                f"loaded peak ({peak:.0f} -> median {low_mhz:.0f} MHz) for {low_s:.1f} s, "
                f"{low_s / loaded_s:.0%} of loaded time{hot}"), ""
    return None, f"no throttling (loaded clock peak {peak:.0f} MHz over {loaded_s:.1f} s)"


def check_data(data: RunData) -> Verdict:
    reasons = _status_reasons(data) + _harness_reasons(data) + _assumed_context_reasons(data)
    notes: list[str] = []
    dropped = dropped_turns(data)
    if dropped:
        reasons.append(f"{dropped} replay turns dropped (valid only with 0)")
    elif dropped == 0:
        notes.append("0 replay turns dropped")
    r, n = _energy_reasons(data)
    reasons += r
    notes += n
    r, n, smoke = _sample_reasons(data)
    reasons += r
    notes += n
    notes += _outcome_notes(data)
    notes += consistency_lines(data)  # a note, never a reason: speed outliers are counted
    throttled, note = throttling(data.samples)
    if throttled:
        reasons.append(throttled)
    else:
        notes.append(note)
    r, n = interference_check(data.steps, bool(data.config.get("allow_interference")))
    reasons += r
    notes += n
    if smoke and reasons:
        notes.append(smoke)
    return Verdict(not reasons and not smoke, tuple(reasons), tuple(notes), smoke)


def _outcome_notes(data: RunData) -> list[str]:
    """How the tasks ended, and the guided tier apart from the graded ones (not checks that
    can fail: what a reader of the verdict needs beside it)."""
    if not data.tasks:
        return []
    notes = ["terminations: " + terminations_text(termination_counts(data.tasks))]
    if is_accuracy(data):
        notes.append(accuracy_note(data.tasks))
    rows = {r.tier: r for r in tier_rows(data)}
    if GUIDED_TIER in rows:
        guided, graded = rows[GUIDED_TIER], rows.get(GRADED_TOTAL)
        notes.append(f"{guided.tasks} guided tasks (the issue states the fix) reported apart: "
                     f"guided {guided.resolved}/{guided.tasks} resolved"
                     + (f", graded {graded.resolved}/{graded.tasks}" if graded else ""))
    return notes


def check_run(run_dir: Path | str) -> Verdict:
    return check_data(load_run(run_dir))


def verdict_lines(verdict: Verdict) -> list[str]:
    if verdict.result == "SMOKE":
        return [f"Result is: SMOKE CHECK passed ({verdict.smoke})"]
    lines = [f"Result is: {verdict.result}"]
    lines += [f"  - {r}" for r in verdict.reasons]
    return lines
