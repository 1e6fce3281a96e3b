"""Task-level and step-level metrics of a run directory (docs/metrics.md defines each one).

The unit is the task: resolved / attempted, tasks per hour, trajectory latency percentiles
with an MLPerf early-stopping bound, energy per (resolved) task; the per-step detail (TTFT,
TPOT, prefill throughput against context length, KV reuse, decode roofline) backs it.
A value that cannot be computed is None with the reason, never 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rundir import TURNS_FILE, Provenance, StoredRun, read_config, read_run, turns_of
from .outcomes import is_accuracy, succeeded, unanswered, words
from .percentiles import Bound, early_stopping_bound, percentile

PHASES = ("prefill", "decode", "tool", "other")
HEADLINE_Q = 0.90  # the reported latency percentile (MLPerf SingleStream reports p90)


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    value: float | None
    unit: str
    null_reason: str | None = None
    n: int | None = None  # samples behind a statistic
    higher_is_better: bool | None = None


@dataclass(frozen=True)
class RunData:
    """One run directory read into plain rows (or several merged: see merge_runs)."""

    label: str
    run_dirs: tuple[str, ...]
    runs: tuple[dict[str, Any], ...]  # run rows (none when the run never started)
    provenance: Provenance
    config: dict[str, Any]
    tasks: tuple[dict[str, Any], ...]
    steps: tuple[dict[str, Any], ...]
    samples: tuple[dict[str, Any], ...]  # t_ns, cpu_percent, rss_bytes, temp_c, cpu_mhz
    power: tuple[tuple[int, float], ...] = ()  # (t_ns, watts) of the device total
    extra_columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # dropped turns counted in a replay's per-turn file; None when the run has none
    replay_dropped: int | None = None


def _replay_dropped(stored: StoredRun, run_dir: Path) -> int | None:
    """A replay's dropped turns; None for a run that is not a replay (no turns stored and no
    turns file)."""
    if not stored.scored and not (run_dir / TURNS_FILE).is_file():
        return None
    return sum(1 for t in turns_of(stored, run_dir) if t.get("status") == "dropped")


def load_run(run_dir: Path | str) -> RunData:
    run_dir = Path(run_dir)
    stored = read_run(run_dir)
    prov = Provenance.from_dict(
        json.loads(stored.run["provenance_json"] or "{}") if stored.run else None)
    return RunData(
        label=stored.run["run_id"] if stored.run else run_dir.name,
        run_dirs=(str(run_dir),),
        runs=stored.runs, provenance=prov, config=read_config(run_dir) or {},
        tasks=stored.tasks, steps=stored.steps, samples=stored.samples,
        power=tuple(power_trace(prov, stored.readings)), extra_columns=stored.columns,
        replay_dropped=_replay_dropped(stored, run_dir),
    )


def power_trace(
    prov: Provenance, readings: Sequence[dict[str, Any]]
) -> list[tuple[int, float]]:
    """Watts of the device total over time: power sources summed, counters differenced."""
    names = list(prov.power_total.get("sources") or [])
    if not names:
        return []
    kinds = {s.get("name"): s.get("kind") for s in prov.power_sources}
    per_source: dict[str, list[tuple[int, float]]] = {n: [] for n in names}
    for r in readings:
        if r["source"] in per_source and r["value"] is not None:
            per_source[r["source"]].append((r["t_ns"], r["value"]))
    watts: dict[int, float] = {}
    counts: dict[int, int] = {}
    for name, points in per_source.items():
        if kinds.get(name) == "counter":
            points = [(tb, (eb - ea) / ((tb - ta) / 1e9))
                      for (ta, ea), (tb, eb) in zip(points, points[1:], strict=False)
                      if tb > ta and eb >= ea]
        for t, w in points:
            watts[t] = watts.get(t, 0.0) + w
            counts[t] = counts.get(t, 0) + 1
    # only instants where every source of the total has a value
    return sorted((t, w) for t, w in watts.items() if counts[t] == len(names))


def merge_runs(label: str, runs: Sequence[RunData]) -> RunData:
    """Pool several runs (e.g. of one device) into one: tasks and steps concatenated."""
    first = runs[0]
    return RunData(
        label=label,
        run_dirs=tuple(d for r in runs for d in r.run_dirs),
        runs=tuple(x for r in runs for x in r.runs),
        provenance=first.provenance, config=first.config,
        tasks=tuple(x for r in runs for x in r.tasks),
        steps=tuple(x for r in runs for x in r.steps),
        samples=tuple(x for r in runs for x in r.samples),
        power=tuple(x for r in runs for x in r.power),
        extra_columns=first.extra_columns,
        replay_dropped=None if all(r.replay_dropped is None for r in runs)
        else sum(r.replay_dropped or 0 for r in runs),
    )


# -- helpers --------------------------------------------------------------------------------
def _div(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _sum_or_none(values: Iterable[float | None]) -> float | None:
    values = list(values)
    return None if not values or any(v is None for v in values) else float(sum(values))


def phase_ms(step: dict[str, Any], phase: str) -> float:
    """Wall ms of one phase of a step (prefill includes render + tokenise, as TTFT does)."""
    if phase == "prefill":
        return step["ttft_ms"]
    if phase == "decode":
        return (step["t_decode_end_ns"] - step["t_first_token_ns"]) / 1e6
    if phase == "tool":
        return step["tool_ms"]
    start = step.get("t_other_start_ns")
    return (step["t_start_ns"] - start) / 1e6 if start is not None else 0.0


def retrieval_ms(step: dict[str, Any]) -> float | None:
    parts = [step.get(f"retrieval_{k}_ms") for k in ("embed", "search", "rerank")]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None


def run_wall_ms(data: RunData) -> float:
    walls = [r["wall_ms"] for r in data.runs if r.get("wall_ms") is not None]
    if len(walls) == len(data.runs) and walls:
        return float(sum(walls))
    return float(sum(t["wall_ms"] for t in data.tasks))  # a crashed run has no run wall


def metered_seconds(tasks: Sequence[dict[str, Any]]) -> float | None:
    """Seconds over which task energies were integrated (energy / average power per task)."""
    secs = [t["energy_j"] / t["average_w"] if t.get("average_w") else t["wall_ms"] / 1000
            for t in tasks if t.get("energy_j") is not None]
    return sum(secs) if secs and len(secs) == len(tasks) else None


def _energy_reason(tasks: Sequence[dict[str, Any]], data: RunData) -> str:
    reasons = sorted({t.get("energy_null_reason") or "" for t in tasks
                      if t.get("energy_j") is None} - {""})
    if not tasks:
        return "no task finished"
    run_reason = next((r.get("energy_null_reason") for r in data.runs
                       if r.get("energy_null_reason")), None)
    return "; ".join(reasons) or run_reason or "no power source found"


def _latency_metrics(prefix: str, label: str, values: Sequence[float], unit: str) -> list[Metric]:
    out = []
    n = len(values)
    for q in (50, 90, 99):
        need = min_samples_for(q / 100)
        if n >= need:
            out.append(Metric(f"{prefix}_p{q}", f"{label} p{q}", percentile(values, q), unit,
                              n=n, higher_is_better=False))
        else:
            out.append(Metric(f"{prefix}_p{q}", f"{label} p{q}", None, unit,
                              f"{n} sample{'' if n == 1 else 's'}; p{q} needs at least {need}",
                              n=n,
                              higher_is_better=False))
    return out


def min_samples_for(q: float) -> int:
    """Samples a q-quantile needs to be reported: one at or beyond it (p90: 10, p99: 100)."""
    return math.ceil(round(1 / (1 - q), 9))


def trajectory_bound(data: RunData) -> Bound:
    return early_stopping_bound([t["wall_ms"] / 1000 for t in data.tasks], HEADLINE_Q)


def is_estimated(data: RunData) -> bool:
    """Energies from a CPU x TDP estimate, not a sensor: every label says so."""
    return bool(data.provenance.power_total.get("estimated"))


# -- run metrics ----------------------------------------------------------------------------
def run_metrics(data: RunData) -> list[Metric]:
    """The run's task-level metrics in report order: counts and rates, latencies,
    throughput, energy, the phases' shares of time and energy, memory."""
    tasks, steps = data.tasks, data.steps
    n = len(tasks)
    # an accuracy run's samples count correct ones under the same keys (outcomes.py); one
    # that could not be answered did no work, so it is no completed sample
    accuracy = is_accuracy(data)
    unit, ok = words(data).unit, words(data).success
    resolved = sum(1 for t in tasks if succeeded(t))
    completed = sum(1 for t in tasks if t["outcome"] != "error"
                    and not (accuracy and unanswered(t)))
    hours = run_wall_ms(data) / 3.6e6
    m: list[Metric] = [
        Metric("tasks_attempted", f"{unit}s attempted", n, "tasks"),
        Metric("tasks_resolved", f"{unit}s {ok}", resolved, "tasks", higher_is_better=True),
        Metric("resolved_rate", f"{ok} / attempted", _div(resolved, n), "fraction",
               None if n else f"no {unit} finished", higher_is_better=True),
        Metric("tasks_per_hour", f"completed {unit}s per hour", _div(completed, hours),
               "tasks/h", None if hours else "no wall time", higher_is_better=True),
        Metric("resolved_per_hour", f"{ok} {unit}s per hour", _div(resolved, hours),
               "tasks/h", None if hours else "no wall time", higher_is_better=True),
        Metric("run_wall_s", "run wall time", run_wall_ms(data) / 1000, "s",
               higher_is_better=False),
    ]
    walls = [t["wall_ms"] / 1000 for t in tasks]
    m.append(Metric("trajectory_mean_s", "trajectory latency mean",
                    _div(sum(walls), len(walls)), "s", None if walls else "no task finished",
                    n=len(walls), higher_is_better=False))
    m += _latency_metrics("trajectory", "trajectory latency", walls, "s")
    bound = trajectory_bound(data)
    m.append(Metric("trajectory_p90_bound", "trajectory latency p90 early-stopping bound",
                    bound.value, "s", bound.null_reason, n=bound.samples,
                    higher_is_better=False))
    m += _latency_metrics("step_latency", "step latency",
                          [(s["t_tool_end_ns"] - s["t_start_ns"]) / 1e9 for s in steps], "s")
    m += _latency_metrics("ttft", "TTFT", [s["ttft_ms"] for s in steps], "ms")
    m += _latency_metrics("tpot", "TPOT", [s["tpot_ms"] for s in steps
                                           if s["tpot_ms"] is not None], "ms")
    m += _throughput_metrics(steps)
    energy = _sum_or_none(t.get("energy_j") for t in tasks)
    why = None if energy is not None else _energy_reason(tasks, data)
    return (m + _energy_metrics(data, energy, why) + _share_metrics(data, energy, why)
            + memory_metrics(data))


def _throughput_metrics(steps: Sequence[dict[str, Any]]) -> list[Metric]:
    """Run-wide throughput of each phase: tokens over the time spent in it."""
    prefill_ms = sum(s["prefill_ms"] for s in steps)
    decode_ms = sum(s["decode_ms"] for s in steps)
    return [
        Metric("prefill_tok_s", "prefill throughput",
               _div(sum(s["prefill_tokens"] for s in steps), prefill_ms / 1000), "tok/s",
               None if prefill_ms else "no prefill time", higher_is_better=True),
        Metric("decode_tok_s", "decode throughput",
               _div(sum(s["decoded_tokens"] for s in steps), decode_ms / 1000), "tok/s",
               None if decode_ms else "no decode time", higher_is_better=True),
    ]


def _energy_metrics(data: RunData, energy: float | None, why: str | None) -> list[Metric]:
    """The run's energy per task, per resolved task, as power and per token; `why` when
    there is none."""
    tasks = data.tasks
    n = len(tasks)
    unit, ok = words(data).unit, words(data).success
    resolved = sum(1 for t in tasks if succeeded(t))
    secs = metered_seconds(tasks)
    decoded = sum(t["decoded_tokens"] for t in tasks)
    est = " (ESTIMATED)" if is_estimated(data) else ""
    return [
        Metric("energy_j", "energy" + est, energy, "J", why, higher_is_better=False),
        Metric("energy_per_task_j", f"energy per {unit}" + est, _div(energy, n), "J", why,
               higher_is_better=False),
        Metric("energy_per_resolved_j", f"energy per {ok} {unit}" + est,
               _div(energy, resolved), "J", why or (None if resolved else f"no {unit} {ok}"),
               higher_is_better=False),
        Metric("average_power_w", "average power" + est, _div(energy, secs), "W", why),
        Metric("tokens_per_joule", "generated tokens per joule" + est, _div(decoded, energy),
               "tok/J", why, higher_is_better=True),
    ]


def _share_metrics(data: RunData, energy: float | None, why: str | None) -> list[Metric]:
    """Each phase's share of task wall time and of task energy."""
    tasks, steps = data.tasks, data.steps
    est = " (ESTIMATED)" if is_estimated(data) else ""
    m: list[Metric] = []
    task_ms = sum(t["wall_ms"] for t in tasks)
    for phase in PHASES:
        ms = sum(phase_ms(s, phase) for s in steps)
        m.append(Metric(f"time_share_{phase}", f"{phase} share of time", _div(ms, task_ms),
                        "fraction", None if task_ms else "no task finished"))
    rms = [retrieval_ms(s) for s in steps]
    known = [r for r in rms if r is not None]
    m.append(Metric("time_share_retrieval", "retrieval share of time",
                    _div(sum(known), task_ms) if known else None, "fraction",
                    None if known else "no retrieval recorded"))
    for phase in PHASES:
        joules = _sum_or_none(s.get(f"energy_{phase}_j") for s in steps)
        reason = why or (None if joules is not None else "a step's phase energy is null")
        m.append(Metric(f"energy_share_{phase}", f"{phase} share of energy{est}",
                        _div(joules, energy) if joules is not None else None, "fraction",
                        reason))
    m.append(Metric("energy_share_retrieval", "retrieval share of energy", None, "fraction",
                    "retrieval is not metered as its own phase (it is inside tool)"))
    return m


def memory_metrics(data: RunData) -> list[Metric]:
    """The run record's peak RSS and the KV cache's size at the largest context (several
    runs pooled: the largest of them)."""
    out = []
    for key, column, label in (
        ("peak_rss_mb", "peak_rss_bytes", "peak RSS"),
        ("kv_cache_mb_max", "kv_cache_bytes_max", "KV cache at the largest context"),
    ):
        values = [r.get(column) for r in data.runs]
        known = [v for v in values if v is not None]
        if data.runs and len(known) == len(values):
            out.append(Metric(key, label, max(known) / 1e6, "MB", higher_is_better=False))
            continue
        why = ("not recorded (a run from before this column, or one that did not finish)"
               if data.runs else "no run record")
        if column == "peak_rss_bytes" and any(r.get("finished_wall") for r in data.runs):
            why = "not readable on this OS (no /proc/self/status)"
        out.append(Metric(key, label, None, "MB", why, higher_is_better=False))
    return out


# -- step metrics ---------------------------------------------------------------------------
def model_bytes(prov: Provenance) -> int | None:
    return prov.model.get("model_size_bytes")


def step_metrics(data: RunData, bandwidth_gbs: float | None = None) -> list[dict[str, Any]]:
    """Per-step derived values; decode roofline columns need the model size and a bandwidth."""
    weights = model_bytes(data.provenance)
    kv_per_token = data.provenance.model.get("kv_bytes_per_token")
    out = []
    for s in data.steps:
        prefill_tok_s = (s["prefill_tokens"] / (s["prefill_ms"] / 1000)
                         if s["prefill_tokens"] and s["prefill_ms"] else None)
        decode_tok_s = 1000 / s["tpot_ms"] if s["tpot_ms"] else None
        # every decoded token reads all weights once plus the KV cache so far (mean over
        # the step's decode: the context plus half the generated tokens)
        if kv_per_token is not None:
            kv_read = kv_per_token * (s["context_tokens"] + s["decoded_tokens"] / 2)
        else:
            kv_read = s["kv_cache_bytes"]
        bytes_per_token = weights + kv_read if weights is not None else None
        achieved = (bytes_per_token * decode_tok_s / 1e9
                    if bytes_per_token and decode_tok_s else None)
        out.append({
            "task_id": s["task_id"], "attempt": s["attempt"], "step": s["step"],
            "context_tokens": s["context_tokens"], "reused_tokens": s["reused_tokens"],
            "prefill_tokens": s["prefill_tokens"], "decoded_tokens": s["decoded_tokens"],
            "ttft_ms": s["ttft_ms"], "tpot_ms": s["tpot_ms"],
            "prefill_tok_s": prefill_tok_s,
            "decode_tok_s": decode_tok_s,
            "cache_reuse_ratio": _div(s["reused_tokens"], s["context_tokens"]),
            "kv_cache_bytes": s["kv_cache_bytes"],
            "decode_bytes_per_token": bytes_per_token,
            "decode_achieved_gbs": achieved,
            "decode_roofline_efficiency": _div(achieved, bandwidth_gbs),
            **{f"{p}_ms": phase_ms(s, p) for p in PHASES},
            **{f"energy_{p}_j": s.get(f"energy_{p}_j") for p in PHASES},
        })
    return out


def recorded_bandwidth(prov: Provenance) -> float | None:
    """The device's memory bandwidth the run recorded (measured once per device, cached)."""
    bw = prov.memory_bandwidth.get("gbs")
    return float(bw) if isinstance(bw, (int, float)) and bw > 0 else None


def roofline_metrics(data: RunData, bandwidth_gbs: float | None) -> list[Metric]:
    """Run-level decode efficiency: the median over steps of achieved / measured bandwidth
    (`bandwidth_gbs` given, else the bandwidth the run recorded for its device)."""
    if bandwidth_gbs is None:
        bandwidth_gbs = recorded_bandwidth(data.provenance)
    rows = step_metrics(data, bandwidth_gbs)
    achieved = [r["decode_achieved_gbs"] for r in rows if r["decode_achieved_gbs"]]
    if model_bytes(data.provenance) is None:
        reason = "model size not recorded in provenance"
    elif not achieved:
        reason = "no step decoded two or more tokens"
    else:
        reason = None
    med = percentile(achieved, 50) if achieved else None
    why_none = data.provenance.memory_bandwidth.get("null_reason") or "the run recorded none"
    eff_reason = reason or (None if bandwidth_gbs else
                            f"no measured bandwidth ({why_none}; `edgeagent doctor "
                            "--bandwidth` measures it, or pass --bandwidth-gbs)")
    return [
        Metric("decode_achieved_gbs", "decode bytes read per second (median)", med, "GB/s",
               reason, n=len(achieved), higher_is_better=True),
        Metric("decode_roofline_efficiency", "decode efficiency vs bandwidth roofline",
               _div(med, bandwidth_gbs) if med is not None else None, "fraction", eff_reason,
               n=len(achieved), higher_is_better=True),
    ]


def task_rows(data: RunData) -> list[dict[str, Any]]:
    """Per-task figures for tables and deltas."""
    out = []
    for t in data.tasks:
        steps = [s for s in data.steps
                 if s["task_id"] == t["task_id"] and s["attempt"] == t["attempt"]]
        out.append({
            "task_id": t["task_id"], "attempt": t["attempt"], "outcome": t["outcome"],
            "termination": t["termination"],
            "termination_detail": t.get("termination_detail"),
            "steps": t["steps"], "wall_s": t["wall_ms"] / 1000,
            "context_tokens_final": t["context_tokens_final"],
            "prefill_tokens": t["prefill_tokens"], "decoded_tokens": t["decoded_tokens"],
            "reused_tokens": t["reused_tokens"], "energy_j": t.get("energy_j"),
            "ttft_ms_mean": _div(sum(s["ttft_ms"] for s in steps), len(steps)),
            **{f"energy_{p}_j": t.get(f"energy_{p}_j") for p in PHASES},
        })
    return out


def metrics_by_key(metrics: Sequence[Metric]) -> dict[str, Metric]:
    return {m.key: m for m in metrics}
