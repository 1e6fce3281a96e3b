"""`edgeagent compare RUN_A RUN_B [...] [--by device]`: headline metrics side by side with
ratios to the first run, per-task deltas, and warnings saying why runs are not comparable."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from .metrics import Metric, RunData, load_run, merge_runs, roofline_metrics, run_metrics
from .validity import check_data

# config keys that say where, not what: a difference in them does not matter
_IRRELEVANT_CONFIG = {"out"}


@dataclass(frozen=True)
class Comparison:
    labels: tuple[str, ...]
    metrics: tuple[tuple[Metric, ...], ...]  # per run, in the same order
    warnings: tuple[str, ...]
    task_deltas: tuple[dict[str, Any], ...]
    validity: tuple[str, ...]  # VALID / INVALID per run

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


def comparability_warnings(runs: Sequence[RunData], by_device: bool) -> list[str]:
    labels = [r.label for r in runs]
    out: list[str] = []
    suites = [sorted({x["suite"] for x in r.runs}) for r in runs]
    tasks = [sorted({t["task_id"] for t in r.tasks}) for r in runs]
    models = [(r.provenance.get("model") or {}).get("sha256", "?")[:12] for r in runs]
    for what, values in (("suite", suites), ("task set", tasks), ("model sha256", models)):
        w = _differs(what, values, labels)
        if w:
            out.append(f"not comparable: {w}")
    configs = [{k: v for k, v in r.config.items() if k not in _IRRELEVANT_CONFIG} for r in runs]
    keys = sorted({k for c in configs for k in c})
    for key in keys:
        w = _differs(f"config {key}", [c.get(key) for c in configs], labels)
        if w:
            out.append(f"not comparable: {w}")
    totals = [((r.provenance.get("power") or {}).get("total") or {}) for r in runs]
    w = _differs("power source", [f"{t.get('label')} scope {t.get('scope')}" if t else "none"
                                  for t in totals], labels)
    if w:
        out.append(f"energies not comparable: {w}")
    versions = [(r.provenance.get("device") or {}).get("llama_cpp_python_version")
                for r in runs]
    w = _differs("llama-cpp-python version", versions, labels)
    if w:
        out.append(w)
    if not by_device:
        w = _differs("device", [_device(r) for r in runs], labels)
        if w:
            out.append(f"{w}; use --by device to compare devices")
    return out


def group_by_device(runs: Sequence[RunData]) -> list[RunData]:
    groups: dict[str, list[RunData]] = {}
    for r in runs:
        groups.setdefault(_device(r), []).append(r)
    return [merge_runs(f"{dev} ({len(g)} run{'s' if len(g) > 1 else ''})", g) if len(g) > 1
            else _relabel(g[0], dev) for dev, g in groups.items()]


def _relabel(data: RunData, label: str) -> RunData:
    from dataclasses import replace

    return replace(data, label=label)


def _task_deltas(runs: Sequence[RunData]) -> list[dict[str, Any]]:
    base = {t["task_id"]: t for t in runs[0].tasks}
    out = []
    for col, r in enumerate(runs[1:], start=1):
        for t in r.tasks:
            a = base.get(t["task_id"])
            if a is None:
                continue
            ea, eb = a.get("energy_j"), t.get("energy_j")
            out.append({
                "task_id": t["task_id"], "vs": r.label, "column": col,
                "outcome": f"{a['outcome']} -> {t['outcome']}",
                "wall_s_a": a["wall_ms"] / 1000, "wall_s_b": t["wall_ms"] / 1000,
                "wall_s_delta": (t["wall_ms"] - a["wall_ms"]) / 1000,
                "steps_delta": t["steps"] - a["steps"],
                "energy_j_delta": eb - ea if ea is not None and eb is not None else None,
            })
    return out


def compare_runs(runs: Sequence[RunData], by_device: bool = False,
                 bandwidth_gbs: float | None = None) -> Comparison:
    warnings = comparability_warnings(runs, by_device)
    if by_device:
        runs = group_by_device(runs)
    return Comparison(
        labels=tuple(r.label for r in runs),
        metrics=tuple(tuple(run_metrics(r) + roofline_metrics(r, bandwidth_gbs)) for r in runs),
        warnings=tuple(warnings),
        task_deltas=tuple(_task_deltas(runs)),
        validity=tuple(check_data(r).result for r in runs),
    )


def _cell(m: Metric) -> str:
    from .formats import fmt_value

    return fmt_value(m)


def _ratio(r: float | None) -> str:
    return f"{r:.2f}x" if r is not None else "-"


def render_comparison(c: Comparison, fmt: str = "text") -> str:
    if fmt == "json":
        return json.dumps({
            "labels": list(c.labels), "warnings": list(c.warnings),
            "validity": list(c.validity),
            "metrics": [{m.key: asdict(m) for m in ms} for ms in c.metrics],
            "ratios": {m.key: [c.ratio(m.key, i) for i in range(1, len(c.labels))]
                       for m in c.metrics[0]},
            "task_deltas": list(c.task_deltas),
        }, indent=2, default=str)
    header = ["metric", c.labels[0]]
    for lab in c.labels[1:]:
        header += [lab, "ratio"]
    rows = [["result", c.validity[0]] + [x for v in c.validity[1:] for x in (v, "")]]
    for i, m in enumerate(c.metrics[0]):
        row = [m.label, _cell(m)]
        for col in range(1, len(c.labels)):
            row += [_cell(c.metrics[col][i]), _ratio(c.ratio(m.key, col))]
        rows.append(row)
    delta_header = ["task", "vs", "outcome", "wall s", "delta s", "steps delta", "energy delta J"]
    deltas = [[d["task_id"], d["vs"], d["outcome"], f"{d['wall_s_a']:.1f} -> {d['wall_s_b']:.1f}",
               f"{d['wall_s_delta']:+.1f}", f"{d['steps_delta']:+d}",
               "n/a" if d["energy_j_delta"] is None else f"{d['energy_j_delta']:+.1f}"]
              for d in c.task_deltas]
    warn = [f"warning: {w}" for w in c.warnings]
    if fmt == "md":
        from .formats import md_table

        lines = [f"- **{w}**" for w in warn] + [""] + md_table(header, rows)
        lines += ["", *md_table(delta_header, deltas)]
        return "\n".join(lines) + "\n"
    return "\n".join(warn + ([""] if warn else []) + _text_table(header, rows) + [""]
                     + _text_table(delta_header, deltas))


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True))  # noqa: E731
    return [line(header), "-" * (sum(widths) + 2 * (len(widths) - 1)), *map(line, rows)]


def compare_dirs(run_dirs: Sequence[Path], by_device: bool, fmt: str,
                 bandwidth_gbs: float | None) -> str:
    if len(run_dirs) < 2 and not by_device:
        raise UserError("compare needs at least two run directories (edgeagent compare A B)")
    return render_comparison(compare_runs([load_run(d) for d in run_dirs], by_device,
                                          bandwidth_gbs), fmt)
