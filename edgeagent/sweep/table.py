"""The sweep's table: one row per configuration, each column a mean ± sd over its repeats,
computed from the run directories alone (docs/sweep.md defines every column).

Per run: turn latency p50/p90 (request start to last token, as MLPerf's turn latency; tool
wait is not the engine's), TTFT and TPOT medians, prefill and decode throughput (tokens over
the phase's whole time, as `report`), energy per turn, the run record's peak RSS and KV cache
at the largest context, and agreement with the first configuration's first repeat: the share
of paired turns with the same output (text and token count) and the same tool.
The Pareto front is over latency (p50) and energy per turn, or peak memory without energy.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..results import RunData, energy_kind, load_run, min_samples_for, percentile, run_metrics
from .sweep_index import SweepIndex

# (key, header, unit, lower is better): the table's numeric columns, in order
COLUMNS: tuple[tuple[str, str, str, bool | None], ...] = (
    ("turn_latency_p50_ms", "turn p50", "ms", True),
    ("turn_latency_p90_ms", "turn p90", "ms", True),
    ("ttft_p50_ms", "TTFT p50", "ms", True),
    ("tpot_p50_ms", "TPOT p50", "ms", True),
    ("prefill_tok_s", "prefill", "tok/s", False),
    ("decode_tok_s", "decode", "tok/s", False),
    ("energy_per_turn_j", "energy/turn", "J", True),
    ("peak_rss_mb", "peak RSS", "MB", True),
    ("kv_cache_mb_max", "KV max", "MB", True),
    ("same_output", "same output", "fraction", None),
    ("same_tool", "same tool", "fraction", None),
)


@dataclass(frozen=True)
class Cell:
    """A column's mean over the repeats that have it, its sample sd (None below two
    repeats), how many repeats it pools, and why it is n/a when it is."""

    mean: float | None
    sd: float | None
    n: int
    null_reason: str | None = None


@dataclass(frozen=True)
class Row:
    config_id: str
    label: str
    settings: dict[str, Any]
    repeats: int  # finished runs behind the row
    run_dirs: tuple[str, ...]
    cells: dict[str, Cell]
    skipped: str | None = None  # why the configuration did not run
    pareto: bool = False


@dataclass(frozen=True)
class SweepTable:
    sweep_dir: str
    plan: dict[str, Any]
    status: str
    rows: tuple[Row, ...]
    pareto_axes: tuple[str, str]  # the two column keys of the front
    notes: tuple[str, ...]  # caveats for the whole table (estimated energy, ...)


def _turn_ms(step: dict[str, Any]) -> float:
    return (step["t_decode_end_ns"] - step["t_start_ns"]) / 1e6


def _pct(values: Sequence[float], q: int) -> tuple[float | None, str | None]:
    need = min_samples_for(q / 100)
    if len(values) < need:
        return None, f"{len(values)} turns; p{q} needs at least {need}"
    return percentile(values, q), None


def _agreement(steps: Sequence[dict[str, Any]], ref: Sequence[dict[str, Any]]
               ) -> tuple[float | None, float | None, str | None]:
    """Shares of this run's turns, paired with the reference's by conversation and turn,
    with the same output (text and token count) and with the same tool."""
    mine = {(s["task_id"], s["step"]): s for s in ref}
    paired = [(mine[(s["task_id"], s["step"])], s) for s in steps
              if (s["task_id"], s["step"]) in mine]
    if not paired:
        return None, None, "no turn pairs with the first configuration's"
    same_out = sum(1 for a, b in paired if a["raw_output"] == b["raw_output"]
                   and a["decoded_tokens"] == b["decoded_tokens"])
    same_tool = sum(1 for a, b in paired if a["action_name"] == b["action_name"])
    return same_out / len(paired), same_tool / len(paired), None


def run_values(data: RunData, ref: RunData | None) -> dict[str, tuple[float | None, str | None]]:
    """One run's value (or None with the reason) for every column."""
    steps = data.steps
    turns = [_turn_ms(s) for s in steps]
    out: dict[str, tuple[float | None, str | None]] = {}
    out["turn_latency_p50_ms"] = _pct(turns, 50)
    out["turn_latency_p90_ms"] = _pct(turns, 90)
    out["ttft_p50_ms"] = _pct([s["ttft_ms"] for s in steps], 50)
    out["tpot_p50_ms"] = _pct([s["tpot_ms"] for s in steps if s["tpot_ms"] is not None], 50)
    metrics = {m.key: m for m in run_metrics(data)}
    for key in ("prefill_tok_s", "decode_tok_s", "peak_rss_mb", "kv_cache_mb_max"):
        out[key] = (metrics[key].value, metrics[key].null_reason)
    energy = metrics["energy_j"]
    if energy.value is None:
        out["energy_per_turn_j"] = (None, energy.null_reason)
    elif not steps:
        out["energy_per_turn_j"] = (None, "no turn finished")
    else:
        out["energy_per_turn_j"] = (energy.value / len(steps), None)
    if ref is None:
        why = "the first configuration has no finished run"
        out["same_output"] = out["same_tool"] = (None, why)
    else:
        same_out, same_tool, why = _agreement(steps, ref.steps)
        out["same_output"], out["same_tool"] = (same_out, why), (same_tool, why)
    return out


def pool(values: Sequence[tuple[float | None, str | None]]) -> Cell:
    """Mean ± sample sd over the repeats; n/a with the first reason when any repeat lacks
    the value (a mean over some repeats would not be the configuration's)."""
    if not values:
        return Cell(None, None, 0, "no finished run")
    missing = [why for v, why in values if v is None]
    if missing:
        return Cell(None, None, len(values), missing[0] or "not measured")
    known = [float(v) for v, _ in values if v is not None]
    return Cell(sum(known) / len(known), statistics.stdev(known) if len(known) > 1 else None,
                len(known))


def pareto_front(points: dict[str, tuple[float, float]]) -> set[str]:
    """The ids no other point beats on both axes (lower is better on each)."""
    front = set()
    for key, (x, y) in points.items():
        dominated = any(ox <= x and oy <= y and (ox < x or oy < y)
                        for other, (ox, oy) in points.items() if other != key)
        if not dominated:
            front.add(key)
    return front


def sweep_table(index: SweepIndex) -> SweepTable:
    """The table of a sweep directory's finished runs (interrupted and failed ones are left
    out: a row pools only complete runs)."""
    rows_runs: list[tuple[dict[str, Any], list[Path]]] = []
    for conf in index.configurations:
        dirs = [index.path / r["run_dir"] for r in conf.get("runs", [])
                if r.get("status") == "complete" and r.get("run_dir")]
        rows_runs.append((conf, dirs))
    loaded = [(conf, [load_run(d) for d in dirs]) for conf, dirs in rows_runs]
    ref = next((runs[0] for _, runs in loaded if runs), None)
    notes: list[str] = []
    kinds = {energy_kind(r) for _, runs in loaded for r in runs}
    if "estimated" in kinds:
        notes.append("energy is a CPU x TDP ESTIMATE, not a measurement")
    rows = []
    for conf, runs in loaded:
        per_run = [run_values(r, ref) for r in runs]
        cells = {key: pool([v[key] for v in per_run]) for key, *_ in COLUMNS}
        rows.append(Row(conf["id"], conf.get("label", conf["id"]), dict(conf.get("settings", {})),
                        len(runs), tuple(str(d.run_dirs[0]) for d in runs), cells,
                        conf.get("skipped")))
    with_energy = [r for r in rows if r.repeats and r.cells["energy_per_turn_j"].mean is not None]
    ran = [r for r in rows if r.repeats]
    y = "energy_per_turn_j" if ran and len(with_energy) == len(ran) else "peak_rss_mb"
    if y == "peak_rss_mb":
        notes.append("no energy for every configuration: the Pareto front is latency vs peak "
                     "memory")
    points = {r.config_id: (r.cells["turn_latency_p50_ms"].mean, r.cells[y].mean)
              for r in ran if r.cells["turn_latency_p50_ms"].mean is not None
              and r.cells[y].mean is not None}
    front = pareto_front(points)  # type: ignore[arg-type]
    rows = [replace(r, pareto=r.config_id in front) for r in rows]
    return SweepTable(str(index.path), index.plan, index.status, tuple(rows),
                      ("turn_latency_p50_ms", y), tuple(notes))
