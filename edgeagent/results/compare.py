"""`edgeagent compare RUN_A RUN_B [...] [--by device]`: headline metrics side by side with
ratios to the first run, per-task deltas, and warnings saying why runs are not comparable.

Columns are labelled A, B, C... with a legend line each (run id, model, device), so a table
stays as wide as its numbers; the output is text, md, json, csv or a one-table html page.
"""

from __future__ import annotations

import csv
import html
import io
import json
import statistics
import string
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import UserError
from .metrics import (
    Metric,
    RunData,
    is_estimated,
    load_run,
    merge_runs,
    roofline_metrics,
    run_metrics,
)
from .stuck_costs import stuck_metrics
from .tiers import tier_metrics
from .validity import check_data

# config keys that say where, not what: a difference in them does not matter
_IRRELEVANT_CONFIG = {"out"}
# a config key whose difference an earlier warning already names (suite, task set, model)
_SAID_BY = {"suite": "suite", "tasks": "task set", "model": "model sha256"}
COMPARE_FORMATS = ("text", "md", "json", "csv", "html")


def column_labels(n: int) -> tuple[str, ...]:
    """A, B, ..., Z, then A2, B2, ...: short column headers for any number of runs."""
    letters = string.ascii_uppercase
    return tuple(letters[i % 26] + (str(i // 26 + 1) if i >= 26 else "") for i in range(n))


@dataclass(frozen=True)
class Comparison:
    labels: tuple[str, ...]  # A, B, C... (the column headers)
    legend: tuple[str, ...]  # per column: what it is (run id or pooled runs, model, device)
    names: tuple[str, ...]  # per column: the run id, or the device group's name
    metrics: tuple[tuple[Metric, ...], ...]  # per run, in the same order
    warnings: tuple[str, ...]
    task_deltas: tuple[dict[str, Any], ...]
    validity: tuple[str, ...]  # VALID / INVALID per run
    # --by config: per column, the standard deviation of each metric over its repeats
    # (None: one run, or a repeat without the value), and the number of repeats
    spread: tuple[dict[str, float | None], ...] = ()
    repeats: tuple[int, ...] = ()
    # per column after A: "equal/paired" steps with A's prompt and output token counts
    token_agreement: tuple[str, ...] = ()

    def ratio(self, key: str, col: int) -> float | None:
        """Column col's value over the first column's (None when either is missing or 0)."""
        base = self._value(key, 0)
        value = self._value(key, col)
        return value / base if value is not None and base else None

    def _value(self, key: str, col: int) -> float | None:
        return next(m.value for m in self.metrics[col] if m.key == key)


def _device(data: RunData) -> str:
    from .formats import device_label

    return device_label(data.provenance)


def _differs(what: str, values: Sequence[Any], labels: Sequence[str]) -> str | None:
    if len({json.dumps(v, sort_keys=True, default=str) for v in values}) <= 1:
        return None
    shown = ", ".join(f"{lab}: {v}" for lab, v in zip(labels, values, strict=True))
    return f"{what} differs ({shown})"


def energy_kind(data: RunData) -> str:
    """measured, estimated (CPU x TDP) or none: runs of different kinds are never pooled."""
    if is_estimated(data):
        return "estimated"
    if data.provenance.power_total:
        return "measured"
    return "none"


def comparability_warnings(runs: Sequence[RunData], by_device: bool,
                           labels: Sequence[str] | None = None) -> list[str]:
    labels = list(labels) if labels is not None else [r.label for r in runs]
    out: list[str] = []
    said: set[str] = set()
    suites = [sorted({x["suite"] for x in r.runs}) for r in runs]
    tasks = [sorted({t["task_id"] for t in r.tasks}) for r in runs]
    models = [(r.provenance.model_sha256 or "?")[:12] for r in runs]
    for what, values in (("suite", suites), ("task set", tasks), ("model sha256", models)):
        w = _differs(what, values, labels)
        if w:
            out.append(f"not comparable: {w}")
            said.add(what)
    configs = [{k: v for k, v in r.config.items() if k not in _IRRELEVANT_CONFIG} for r in runs]
    keys = sorted({k for c in configs for k in c})
    for key in keys:
        if _SAID_BY.get(key) in said:
            continue  # the same difference, already named above
        w = _differs(f"config {key}", [c.get(key) for c in configs], labels)
        if w:
            out.append(f"not comparable: {w}")
    totals = [r.provenance.power_total for r in runs]
    w = _differs("power source", [f"{t.get('label')} scope {t.get('scope')}" if t else "none"
                                  for t in totals], labels)
    if w:
        out.append(f"energies not comparable: {w}")
    versions = [r.provenance.device.get("llama_cpp_python_version") for r in runs]
    w = _differs("llama-cpp-python version", versions, labels)
    if w:
        out.append(w)
    if not by_device:
        w = _differs("device", [_device(r) for r in runs], labels)
        if w:
            out.append(f"{w}; use --by device to compare devices")
    else:
        devices: dict[str, set[str]] = {}
        for r in runs:
            devices.setdefault(_device(r), set()).add(energy_kind(r))
        for dev, kinds in devices.items():
            if len(kinds) > 1:
                out.append(f"{dev}: runs with {' / '.join(sorted(kinds))} energy are kept in "
                           "separate columns (an estimate is never pooled with a measurement)")
    return list(dict.fromkeys(out))  # each warning once


def group_by_device(runs: Sequence[RunData]) -> list[RunData]:
    """One column per device and energy kind: an estimated-energy run is never pooled with a
    measured or an unmetered one."""
    groups: dict[tuple[str, str], list[RunData]] = {}
    for r in runs:
        groups.setdefault((_device(r), energy_kind(r)), []).append(r)
    split = {dev for dev, _ in groups if sum(1 for d, _ in groups if d == dev) > 1}
    out = []
    for (dev, kind), g in groups.items():
        name = f"{dev}, {_energy_words(kind)}" if dev in split else dev
        out.append(merge_runs(f"{name} ({len(g)} runs)", g) if len(g) > 1
                   else _relabel(g[0], name))
    return out


def _relabel(data: RunData, label: str) -> RunData:
    from dataclasses import replace

    return replace(data, label=label)


def _task_deltas(runs: Sequence[RunData], labels: Sequence[str]) -> list[dict[str, Any]]:
    base = {t["task_id"]: t for t in runs[0].tasks}
    out = []
    for col, r in enumerate(runs[1:], start=1):
        for t in r.tasks:
            a = base.get(t["task_id"])
            if a is None:
                continue
            ea, eb = a.get("energy_j"), t.get("energy_j")
            out.append({
                "task_id": t["task_id"], "vs": labels[col], "column": col,
                "outcome": f"{a['outcome']} -> {t['outcome']}",
                # one word when unchanged: the table stays narrow
                "termination": a["termination"] if a["termination"] == t["termination"]
                else f"{a['termination']} -> {t['termination']}",
                "wall_s_a": a["wall_ms"] / 1000, "wall_s_b": t["wall_ms"] / 1000,
                "wall_s_delta": (t["wall_ms"] - a["wall_ms"]) / 1000,
                "steps_delta": t["steps"] - a["steps"],
                "energy_j_delta": eb - ea if ea is not None and eb is not None else None,
            })
    return out


def _legend(data: RunData) -> str:
    model = data.provenance.model
    name = model.get("name") or model.get("served_model") or model.get("path") or "?"
    return f"{data.label}: model {name}, {_device(data)}, {_energy_words(energy_kind(data))}"


def _energy_words(kind: str) -> str:
    return "no energy" if kind == "none" else f"{kind} energy"


def repeat_key(data: RunData) -> str:
    """Runs with the same key are repeats of one configuration: model, suite, task set,
    config (but where it was written), device and energy kind."""
    model = data.provenance.model_sha256
    config = {k: v for k, v in data.config.items() if k not in _IRRELEVANT_CONFIG}
    return json.dumps([model, sorted({x["suite"] for x in data.runs}),
                       sorted({t["task_id"] for t in data.tasks}), config, _device(data),
                       energy_kind(data)], sort_keys=True, default=str)


def _pooled(group: Sequence[RunData], bandwidth_gbs: float | None,
            ) -> tuple[tuple[Metric, ...], dict[str, float | None]]:
    """Each metric as its mean over the repeats, and its sample standard deviation (as
    llama-bench reports a configuration: one row, mean ± sd)."""
    per = [headline_metrics(r, bandwidth_gbs) for r in group]
    means: list[Metric] = []
    sd: dict[str, float | None] = {}
    for i, m in enumerate(per[0]):
        values = [p[i].value for p in per]
        if any(v is None for v in values):
            reason = next((p[i].null_reason for p in per if p[i].value is None), None)
            means.append(replace(m, value=None, null_reason=reason or "missing in a repeat"))
            sd[m.key] = None
            continue
        known = [float(v) for v in values if v is not None]
        means.append(replace(m, value=sum(known) / len(known)))
        sd[m.key] = statistics.stdev(known) if len(known) > 1 else None
    return tuple(means), sd


def compare_repeats(runs: Sequence[RunData],
                    bandwidth_gbs: float | None = None) -> Comparison:
    """`--by config`: the repeats of each configuration in one column, mean ± sd."""
    groups: dict[str, list[RunData]] = {}
    for r in runs:
        groups.setdefault(repeat_key(r), []).append(r)
    columns = list(groups.values())
    labels = column_labels(len(columns))
    merged = [merge_runs(f"{g[0].label} (+{len(g) - 1} repeats)" if len(g) > 1 else g[0].label,
                         g) for g in columns]
    pooled = [_pooled(g, bandwidth_gbs) for g in columns]
    warnings = comparability_warnings([g[0] for g in columns], False, labels)
    return Comparison(
        labels=labels,
        legend=tuple(f"{_legend(m)}; {len(g)} run{'s' if len(g) > 1 else ''}"
                     + (f": {', '.join(r.label for r in g)}" if len(g) > 1 else "")
                     for m, g in zip(merged, columns, strict=True)),
        names=tuple(m.label for m in merged),
        metrics=tuple(p[0] for p in pooled),
        warnings=tuple(warnings),
        task_deltas=tuple(_task_deltas(merged, labels)),
        validity=tuple(check_data(m).result for m in merged),
        spread=tuple(p[1] for p in pooled),
        repeats=tuple(len(g) for g in columns),
    )


def headline_metrics(data: RunData, bandwidth_gbs: float | None) -> list[Metric]:
    """The metrics a column shows: the run's, its tiers' and the stuck rule's, the roofline."""
    return (run_metrics(data) + tier_metrics(data) + stuck_metrics(data)
            + roofline_metrics(data, bandwidth_gbs))


def compare_runs(runs: Sequence[RunData], by_device: bool = False,
                 bandwidth_gbs: float | None = None) -> Comparison:
    warnings = comparability_warnings(runs, by_device, column_labels(len(runs)))
    if by_device:
        runs = group_by_device(runs)
    labels = column_labels(len(runs))
    return Comparison(
        labels=labels,
        legend=tuple(_legend(r) for r in runs),
        names=tuple(r.label for r in runs),
        metrics=tuple(tuple(headline_metrics(r, bandwidth_gbs)) for r in runs),
        warnings=tuple(warnings),
        task_deltas=tuple(_task_deltas(runs, labels)),
        validity=tuple(check_data(r).result for r in runs),
        token_agreement=() if by_device else tuple(
            _token_agreement(runs[0], r) for r in runs[1:]),
    )


def _token_agreement(a: RunData, b: RunData) -> str:
    """How many steps of B (paired with A's by task, attempt and step) have A's prompt and
    output token counts: whether two runs (say in process and through a server) did the same
    work token for token."""
    key = lambda s: (s["task_id"], s["attempt"], s["step"])  # noqa: E731
    mine = {key(s): s for s in a.steps}
    paired = [(mine[key(s)], s) for s in b.steps if key(s) in mine]
    prompt = sum(1 for x, y in paired if x["context_tokens"] == y["context_tokens"])
    output = sum(1 for x, y in paired if x["decoded_tokens"] == y["decoded_tokens"])
    return f"{prompt}/{len(paired)} / {output}/{len(paired)}"


def _cell(c: Comparison, col: int, i: int) -> str:
    from .formats import fmt_value

    m = c.metrics[col][i]
    sd = c.spread[col].get(m.key) if c.spread else None
    if sd is None or m.value is None:
        return fmt_value(m)
    spread = fmt_value(replace(m, value=sd)).split(" ")[0] if m.unit != "fraction" else (
        fmt_value(replace(m, value=sd)))
    return f"{fmt_value(m)} ± {spread}"


def _ratio(r: float | None) -> str:
    return f"{r:.2f}x" if r is not None else "-"


def render_comparison(c: Comparison, fmt: str = "text") -> str:
    if fmt == "json":
        return json.dumps({
            "labels": list(c.labels), "names": list(c.names), "legend": list(c.legend),
            "warnings": list(c.warnings),
            "validity": list(c.validity),
            "metrics": [{m.key: asdict(m) for m in ms} for ms in c.metrics],
            "ratios": {m.key: [c.ratio(m.key, i) for i in range(1, len(c.labels))]
                       for m in c.metrics[0]},
            "task_deltas": list(c.task_deltas),
            "spread_sd": [dict(s) for s in c.spread], "repeats": list(c.repeats),
            "token_agreement_vs_first": list(c.token_agreement),
        }, indent=2, default=str)
    header = ["metric", c.labels[0]]
    for lab in c.labels[1:]:
        header += [lab, "ratio"]
    rows = [["result", c.validity[0]] + [x for v in c.validity[1:] for x in (v, "")]]
    if c.token_agreement:
        rows.append([f"steps with {c.labels[0]}'s tokens (prompt / output)", "-"]
                    + [x for v in c.token_agreement for x in (v, "")])
    for i, m in enumerate(c.metrics[0]):
        row = [m.label, _cell(c, 0, i)]
        for col in range(1, len(c.labels)):
            row += [_cell(c, col, i), _ratio(c.ratio(m.key, col))]
        rows.append(row)
    delta_header = ["task", "vs", "outcome", "termination", "wall s", "delta s", "steps delta",
                    "energy delta J"]
    deltas = [[d["task_id"], d["vs"], d["outcome"], d["termination"],
               f"{d['wall_s_a']:.1f} -> {d['wall_s_b']:.1f}",
               f"{d['wall_s_delta']:+.1f}", f"{d['steps_delta']:+d}",
               "n/a" if d["energy_j_delta"] is None else f"{d['energy_j_delta']:+.1f}"]
              for d in c.task_deltas]
    warn = [f"warning: {w}" for w in c.warnings]
    legend = [f"{lab} = {text}" for lab, text in zip(c.labels, c.legend, strict=True)]
    if fmt == "csv":
        return _csv(c)
    if fmt == "html":
        return _html(legend, warn, header, rows, delta_header, deltas)
    if fmt == "md":
        from .formats import md_table

        lines = [f"- {x}" for x in legend] + [""] + [f"- **{w}**" for w in warn] + [""]
        lines += md_table(header, rows)
        lines += ["", *md_table(delta_header, deltas)]
        return "\n".join(lines) + "\n"
    return "\n".join(legend + [""] + warn + ([""] if warn else []) + _text_table(header, rows)
                     + [""] + _text_table(delta_header, deltas))


def _csv(c: Comparison) -> str:
    """One row per metric: key, label, unit, then each column's value and its ratio to A."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    head = ["metric", "label", "unit"]
    for i, lab in enumerate(c.labels):
        head += [lab] if i == 0 else [lab, f"{lab}/{c.labels[0]}"]
    w.writerow(head)
    w.writerow(["result", "result", ""] + [x for i, v in enumerate(c.validity)
                                            for x in ([v] if i == 0 else [v, ""])])
    for i, m in enumerate(c.metrics[0]):
        row: list[Any] = [m.key, m.label, m.unit]
        for col in range(len(c.labels)):
            value = c.metrics[col][i].value
            row.append("" if value is None else value)
            if col:
                ratio = c.ratio(m.key, col)
                row.append("" if ratio is None else ratio)
        w.writerow(row)
    for lab, text in zip(c.labels, c.legend, strict=True):
        w.writerow(["legend", lab, "", text])
    for warning in c.warnings:
        w.writerow(["warning", "", "", warning])
    return buf.getvalue().rstrip("\n")


def _html(legend: Sequence[str], warn: Sequence[str], header: Sequence[str],
          rows: Sequence[Sequence[str]], delta_header: Sequence[str],
          deltas: Sequence[Sequence[str]]) -> str:
    """One self-contained page: the legend, the warnings and the two tables."""
    def table(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
        th = "".join(f"<th>{html.escape(str(h))}</th>" for h in head)
        trs = "".join("<tr>" + "".join(
            f"<td{' class=n' if j else ''}>{html.escape(str(x))}</td>" for j, x in enumerate(r))
            + "</tr>" for r in body)
        return f"<table><tr>{th}</tr>{trs}</table>"

    items = "".join(f"<li>{html.escape(x)}</li>" for x in legend)
    warns = "".join(f"<li class=warn>{html.escape(x)}</li>" for x in warn)
    return ("<!doctype html><meta charset=utf-8><title>edgeagent compare</title><style>"
            "body{font-family:sans-serif}table{border-collapse:collapse;margin:1em 0}"
            "td,th{border:1px solid #ccc;padding:2px 8px;white-space:nowrap}"
            "td.n{text-align:right;font-variant-numeric:tabular-nums}.warn{color:#b45309}"
            f"</style><h1>edgeagent compare</h1><ul>{items}</ul><ul>{warns}</ul>"
            + table(header, rows) + table(delta_header, deltas))


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True))  # noqa: E731
    return [line(header), "-" * (sum(widths) + 2 * (len(widths) - 1)), *map(line, rows)]


def compare_dirs(run_dirs: Sequence[Path], by: bool | str | None, fmt: str,
                 bandwidth_gbs: float | None) -> str:
    """`by`: None (one column per run), "device" (True) or "config" (repeats, mean ± sd)."""
    if by is True:
        by = "device"
    if len(run_dirs) < 2 and not by:
        raise UserError("compare needs at least two run directories (edgeagent compare A B)")
    runs = [load_run(d) for d in run_dirs]
    if by == "config":
        return render_comparison(compare_repeats(runs, bandwidth_gbs), fmt)
    return render_comparison(compare_runs(runs, by == "device", bandwidth_gbs), fmt)
