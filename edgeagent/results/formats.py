"""`edgeagent report --format text|md|json|csv|html`: one run's metrics in each format."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..rundir import Provenance
from .consistency import consistency_lines, speed_consistency
from .interference import interference_lines, interference_metrics, run_interference
from .metrics import (
    Metric,
    RunData,
    load_run,
    recorded_bandwidth,
    roofline_metrics,
    run_metrics,
    step_metrics,
)
from .metrics import task_rows as _task_rows
from .outcomes import AGENT_WORDS, Words, words
from .report import report_text
from .stuck_costs import stuck_lines, stuck_metrics
from .tiers import GUIDED_NOTE, TIER_HEADER, tier_lines, tier_metrics, tier_rows, tier_table
from .validity import Verdict, check_data, verdict_lines

FORMATS = ("text", "md", "json", "csv", "html")

_PERCENT_UNITS = {"fraction"}


def fmt_value(m: Metric) -> str:
    if m.value is None:
        return "n/a"
    if m.unit in _PERCENT_UNITS:
        return f"{100 * m.value:.1f}%"
    if m.unit == "tasks":
        return f"{m.value:.0f}"
    v = m.value
    digits = 3 if abs(v) < 10 else 2 if abs(v) < 100 else 1
    return f"{v:.{digits}f} {m.unit}"


def fmt_metric(m: Metric) -> str:
    text = fmt_value(m)
    if m.value is None and m.null_reason:
        text += f" ({m.null_reason})"
    return text


def all_metrics(data: RunData, bandwidth_gbs: float | None) -> list[Metric]:
    return (run_metrics(data) + tier_metrics(data) + stuck_metrics(data)
            + roofline_metrics(data, bandwidth_gbs) + interference_metrics(data.steps))


def _metric_section(metrics: Sequence[Metric], w: Words = AGENT_WORDS) -> list[str]:
    """The task-level metrics in text; `w` names an accuracy run's units (correct samples)."""
    by = {m.key: m for m in metrics}
    f = lambda k: fmt_metric(by[k])  # noqa: E731
    v = lambda k: fmt_value(by[k])  # noqa: E731
    lines = ["", f"{w.unit}-level metrics:"]
    per_hour = lambda k: v(k).replace("tasks/h", f"{w.unit}s/h")  # noqa: E731
    lines.append(f"  {w.success} {v('tasks_resolved')}/{v('tasks_attempted')} "
                 f"({v('resolved_rate')}), {per_hour('tasks_per_hour')} completed, "
                 f"{per_hour('resolved_per_hour')} {w.success}")
    lines.append(f"  trajectory latency (n={by['trajectory_p50'].n}): mean "
                 f"{v('trajectory_mean_s')}, p50 {f('trajectory_p50')}, p90 {f('trajectory_p90')},"
                 f" p99 {v('trajectory_p99')}; p90 early-stopping bound "
                 f"{f('trajectory_p90_bound')}")
    for key, label in (("step_latency", "step latency"), ("ttft", "TTFT"), ("tpot", "TPOT")):
        lines.append(f"  {label} (n={by[key + '_p50'].n}): p50 {v(key + '_p50')}, "
                     f"p90 {v(key + '_p90')}, p99 {v(key + '_p99')}")
    est = " (ESTIMATED)" if "ESTIMATED" in by["energy_j"].label else ""
    if by["energy_j"].value is None:  # one reason, not a row of n/a
        lines.append(f"  energy: not measured ({by['energy_j'].null_reason})")
    else:
        lines.append(f"  energy{est}: per {w.unit} {f('energy_per_task_j')}, per "
                     f"{w.success} {w.unit} {f('energy_per_resolved_j')}, average power "
                     f"{f('average_power_w')}, {v('tokens_per_joule')} generated")
    for kind in ("time", "energy"):
        parts = [f"{p} {v(f'{kind}_share_{p}')}"
                 for p in ("prefill", "decode", "tool", "other", "retrieval")]
        lines.append(f"  share of {kind}: " + ", ".join(parts))
    lines.append(f"  decode: {f('decode_achieved_gbs')} read (weights + KV per token x tok/s), "
                 f"roofline efficiency {f('decode_roofline_efficiency')}")
    lines.append(f"  memory: peak RSS {f('peak_rss_mb')}, KV cache at the largest context "
                 f"{f('kv_cache_mb_max')}")
    return lines


def render_text(data: RunData, bandwidth_gbs: float | None = None) -> str:
    """The report's head (results.report), then tiers, metrics, stuck cost and verdict."""
    base = report_text(data)
    if not data.runs:
        return base
    lines = tier_lines(data) + _metric_section(all_metrics(data, bandwidth_gbs), words(data))
    lines += ["", *stuck_lines(data), *consistency_lines(data)]
    lines += ["", *interference_lines(data.steps)]
    return "\n".join([base, *lines, "", *verdict_lines(check_data(data))])


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join("" if c is None else str(c) for c in r) + " |" for r in rows]
    return out


def _task_table(data: RunData) -> tuple[list[str], list[list[Any]]]:
    header = ["task", "outcome", "termination", "steps", "wall s", "final ctx", "prefilled",
              "decoded", "reused", "energy J"]
    rows = [[t["task_id"], t["outcome"], t["termination"], t["steps"], f"{t['wall_s']:.1f}",
             t["context_tokens_final"], t["prefill_tokens"], t["decoded_tokens"],
             t["reused_tokens"], "n/a" if t["energy_j"] is None else f"{t['energy_j']:.1f}"]
            for t in _task_rows(data)]
    return header, rows


def _title(data: RunData) -> str:
    model = data.provenance.model
    suite = data.runs[0]["suite"] if data.runs else "?"
    return (f"run {data.label}: suite {suite}, model {model.get('name') or model.get('path')} "
            f"({model.get('quantization') or '?'}), device {device_label(data.provenance)}")


def device_label(prov: Provenance) -> str:
    board = (prov.power.get("jetson_board") or {}).get("model")
    device = prov.device
    return str(board or device.get("device_model") or device.get("cpu_model") or "unknown device")


def metric_rows(metrics: Sequence[Metric]) -> list[list[Any]]:
    """The metrics table's rows (metric, value, n, note), as md and html show them."""
    return [[m.label, fmt_value(m), m.n, m.null_reason or ""] for m in metrics]


def render_md(data: RunData, metrics: Sequence[Metric], verdict: Verdict) -> str:
    lines = [f"# {_title(data)}", "",
             f"**Result is: {verdict.result}**", ""]
    lines += [f"- {r}" for r in verdict.reasons] + ([""] if verdict.reasons else [])
    lines += ["## Metrics", ""]
    lines += md_table(["metric", "value", "n", "note"], metric_rows(metrics))
    if tier_rows(data):
        lines += ["", "## Tiers", "", f"Graded: the issue describes the problem; {GUIDED_NOTE}.",
                  ""]
        lines += md_table(TIER_HEADER, tier_table(data))
    lines += ["", *stuck_lines(data), "", *consistency_lines(data)]
    lines += ["", *interference_lines(data.steps)]
    lines += ["", "## Tasks", ""]
    lines += md_table(*_task_table(data))
    return "\n".join(lines) + "\n"


def to_json(data: RunData, metrics: Sequence[Metric], verdict: Verdict,
            bandwidth_gbs: float | None) -> dict[str, Any]:
    model = data.provenance.model
    return {
        "label": data.label,
        "run_dirs": list(data.run_dirs),
        "suite": data.runs[0]["suite"] if data.runs else None,
        "status": [r["status"] for r in data.runs],
        "model": {k: model.get(k) for k in ("name", "sha256", "quantization", "n_ctx",
                                            "model_size_bytes", "kv_bytes_per_token",
                                            "settings", "settings_read_back")},
        "peak_rss_scope": next((r.get("peak_rss_scope") for r in data.runs), None),
        "device": device_label(data.provenance),
        "bandwidth_gbs": bandwidth_gbs,
        "metrics": {m.key: asdict(m) for m in metrics},
        "tiers": [asdict(r) for r in tier_rows(data)],
        "tasks": _task_rows(data),
        "steps": step_metrics(data, bandwidth_gbs or recorded_bandwidth(data.provenance)),
        "validity": verdict.to_dict(),
        "speed_consistency": speed_consistency(data).to_dict() if data.steps else None,
        "interference": [asdict(p) for p in run_interference(data.steps)],
    }


def render_csv(data: RunData, metrics: Sequence[Metric], bandwidth_gbs: float | None) -> str:
    """Tidy rows (level, task, attempt, step, metric, value, unit): every number, pivotable."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["level", "task_id", "attempt", "step", "metric", "value", "unit", "null_reason"])
    for m in metrics:
        w.writerow(["run", "", "", "", m.key, m.value, m.unit, m.null_reason or ""])
    for t in _task_rows(data):
        for key, value in t.items():
            if key not in ("task_id", "attempt"):
                w.writerow(["task", t["task_id"], t["attempt"], "", key, value, "", ""])
    for s in step_metrics(data, bandwidth_gbs or recorded_bandwidth(data.provenance)):
        for key, value in s.items():
            if key not in ("task_id", "attempt", "step"):
                w.writerow(["step", s["task_id"], s["attempt"], s["step"], key, value, "", ""])
    return buf.getvalue()


def render(run_dir: Path, fmt: str, bandwidth_gbs: float | None = None) -> str:
    if fmt not in FORMATS:
        raise UserError(f"--format {fmt}: unknown (choose one of {', '.join(FORMATS)})")
    if bandwidth_gbs is not None and bandwidth_gbs <= 0:
        raise UserError("--bandwidth-gbs must be a positive number of GB/s")
    data = load_run(run_dir)  # once: every part of every format reads this one load
    if fmt == "text":
        return render_text(data, bandwidth_gbs)
    metrics = all_metrics(data, bandwidth_gbs)
    verdict = check_data(data)
    if fmt == "md":
        return render_md(data, metrics, verdict)
    if fmt == "json":
        return json.dumps(to_json(data, metrics, verdict, bandwidth_gbs), indent=2, default=str)
    if fmt == "csv":
        return render_csv(data, metrics, bandwidth_gbs)
    from .html import render_html

    return render_html(data, metric_rows(metrics), verdict, bandwidth_gbs, md_title=_title(data),
                       task_table=_task_table(data),
                       tier_table=(TIER_HEADER, tier_table(data)),
                       note_lines=[*stuck_lines(data), *consistency_lines(data),
                                   *interference_lines(data.steps)])
