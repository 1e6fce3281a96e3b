"""The sweep table as text, md, csv, json or one HTML page with the Pareto front plotted
(latency against energy per turn, or against peak memory when energy is missing)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from html import escape
from pathlib import Path
from typing import Any

from ..errors import UserError
from .grid import label_value
from .table import COLUMNS, Cell, Row, SweepTable

FORMATS = ("text", "md", "json", "csv", "html")
# the files `edgeagent sweep` leaves in the sweep directory, by format
OUTPUT_FILES = {"md": "sweep.md", "csv": "sweep.csv", "json": "sweep-table.json",
                "html": "sweep.html"}
_HEADERS = {key: (header, unit) for key, header, unit, _ in COLUMNS}


def _digits(value: float) -> int:
    return 3 if abs(value) < 10 else 2 if abs(value) < 100 else 1


def fmt_number(value: float, unit: str, digits: int | None = None) -> str:
    if unit == "fraction":
        return f"{100 * value:.0f}%"
    return f"{value:.{_digits(value) if digits is None else digits}f}"


def fmt_cell(cell: Cell, unit: str) -> str:
    """`12.3 ± 0.4`, `12.3` (one repeat) or `n/a`; the sd to the mean's decimals."""
    if cell.mean is None:
        return "n/a"
    text = fmt_number(cell.mean, unit)
    if cell.sd is not None:
        text += f" ± {fmt_number(cell.sd, unit, _digits(cell.mean))}"
    return text


def _header() -> list[str]:
    units = {"fraction": ""}
    return ["id", "settings", "runs"] + [
        f"{h} {units.get(u, u)}".strip() for _, h, u, _ in COLUMNS] + ["Pareto"]


def _row(r: Row) -> list[str]:
    if r.skipped is not None:
        return [r.config_id, r.label, "0"] + ["-"] * len(COLUMNS) + ["skipped"]
    return ([r.config_id, r.label, str(r.repeats)]
            + [fmt_cell(r.cells[key], unit) for key, _, unit, _ in COLUMNS]
            + ["*" if r.pareto else ""])


def _reasons(t: SweepTable) -> list[str]:
    """Why a column is n/a, once per column and reason; why a configuration was skipped."""
    out = []
    for key, header, _, _ in COLUMNS:
        reasons = sorted({r.cells[key].null_reason for r in t.rows if r.skipped is None
                          and r.cells[key].mean is None and r.cells[key].null_reason})
        out += [f"{header} n/a: {why}" for why in reasons]
    out += [f"{r.config_id} ({r.label}) skipped: {r.skipped}" for r in t.rows if r.skipped]
    return out


def _plan_lines(t: SweepTable) -> list[str]:
    plan = t.plan
    work = plan.get("workload") or {}
    what = work.get("dataset") or f"suite {work.get('suite')}"
    grid = ", ".join(f"{k} {','.join(label_value(v) for v in vs)}" for k, vs in
                     (plan.get("grid") or {}).items())
    x, y = (_HEADERS[a][0] for a in t.pareto_axes)
    model = (plan.get("base") or {}).get("model") or "the default"
    return [f"sweep {t.sweep_dir} [{t.status}]",
            f"workload: {work.get('kind')} {what}"
            + (f" (conversations {work['conversations']})" if work.get("conversations") else ""),
            f"model: {model}; grid: {grid or 'defaults only'}; repeats: {plan.get('repeats')}",
            "cells: mean ± sample sd over the repeats; agreement is against the first "
            f"configuration's first repeat; Pareto (*): lowest {x} and {y}"]


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True))  # noqa: E731
    return [line(header), "-" * (sum(widths) + 2 * (len(widths) - 1)), *map(line, rows)]


def to_json(t: SweepTable) -> dict[str, Any]:
    return {"sweep_dir": t.sweep_dir, "status": t.status, "plan": t.plan,
            "pareto_axes": list(t.pareto_axes), "notes": list(t.notes),
            "columns": [{"key": k, "header": h, "unit": u} for k, h, u, _ in COLUMNS],
            "rows": [asdict(r) for r in t.rows]}


def _csv(t: SweepTable) -> str:
    """One row per configuration: its settings, runs, then each column's mean and sd."""
    keys = sorted({k for r in t.rows for k in r.settings})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "label", *keys, "runs"]
               + [x for k, _, u, _ in COLUMNS for x in (f"{k}", f"{k}_sd")]
               + ["pareto", "skipped"])
    for r in t.rows:
        cells = [r.cells[k] for k, *_ in COLUMNS]
        w.writerow([r.config_id, r.label, *[r.settings.get(k, "") for k in keys], r.repeats]
                   + [x for c in cells for x in ("" if c.mean is None else c.mean,
                                                 "" if c.sd is None else c.sd)]
                   + [int(r.pareto), r.skipped or ""])
    return buf.getvalue()


def pareto_svg(t: SweepTable) -> str:
    """Every configuration at (latency p50, energy per turn or peak RSS) with its sd as
    error bars; the front drawn as a line through its points. Needs matplotlib."""
    from ..results import pyplot

    plt = pyplot()
    xk, yk = t.pareto_axes
    pts = [r for r in t.rows if r.cells[xk].mean is not None and r.cells[yk].mean is not None]
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    for r in pts:
        x, y = r.cells[xk], r.cells[yk]
        ax.errorbar(x.mean, y.mean, xerr=x.sd or 0, yerr=y.sd or 0, fmt="o",
                    color="#c62828" if r.pareto else "#4c72b0", capsize=3)
        ax.annotate(f"{r.config_id} {r.label}", (x.mean, y.mean), fontsize=7,
                    xytext=(4, 4), textcoords="offset points")
    front = sorted((r.cells[xk].mean, r.cells[yk].mean) for r in pts if r.pareto)
    if len(front) > 1:
        ax.step([p[0] for p in front], [p[1] for p in front], where="post", color="#c62828",
                lw=1, ls="--", label="Pareto front")
        ax.legend(fontsize=8)
    ax.set_xlabel(f"{_HEADERS[xk][0]} ({_HEADERS[xk][1]})")
    ax.set_ylabel(f"{_HEADERS[yk][0]} ({_HEADERS[yk][1]})")
    ax.set_title("configurations: lower left is better (red: Pareto front)")
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg"):]


def _html(t: SweepTable) -> str:
    from ..results import PAGE_STYLE, html_table

    try:
        plot = pareto_svg(t) if any(r.repeats for r in t.rows) else (
            '<p class="note">no configuration finished a run: nothing to plot</p>')
    except UserError as exc:  # matplotlib missing: the table is still worth a page
        plot = f'<p class="note">plot not drawn: {escape(str(exc))}</p>'
    lines = "".join(f"<li>{escape(x)}</li>" for x in _plan_lines(t)[1:])
    notes = "".join(f"<li>{escape(x)}</li>" for x in [*t.notes, *_reasons(t)])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>edgeagent sweep</title>
<style>{PAGE_STYLE}</style></head><body>
<h1>edgeagent sweep</h1>
<p>{escape(_plan_lines(t)[0])}</p>
<ul>{lines}</ul>
<h2>Configurations</h2>
{html_table(_header(), [_row(r) for r in t.rows])}
<ul class="note">{notes}</ul>
<h2>Latency against {escape(_HEADERS[t.pareto_axes[1]][0])}</h2>
<figure>{plot}<figcaption>Each configuration's mean over its repeats, with ± one sd as
error bars; red points are the Pareto front (no other configuration is both faster and
cheaper).</figcaption></figure>
</body></html>
"""


def render_table(t: SweepTable, fmt: str = "text") -> str:
    if fmt == "json":
        return json.dumps(to_json(t), indent=2, default=str)
    if fmt == "csv":
        return _csv(t)
    if fmt == "html":
        return _html(t)
    header, rows = _header(), [_row(r) for r in t.rows]
    notes = [*t.notes, *_reasons(t)]
    if fmt == "md":
        from ..results import md_table

        out = [f"# edgeagent {_plan_lines(t)[0]}", ""]
        out += [f"- {x}" for x in _plan_lines(t)[1:]] + [""]
        out += md_table(header, rows) + [""]
        out += [f"- {x}" for x in notes]
        return "\n".join(out) + "\n"
    return "\n".join([*_plan_lines(t), "", *_text_table(header, rows), "",
                      *(f"note: {x}" for x in notes)])


def write_outputs(t: SweepTable, sweep_dir: Path) -> list[Path]:
    """sweep.md, sweep.csv, sweep-table.json and sweep.html in the sweep directory."""
    written = []
    for fmt, name in OUTPUT_FILES.items():
        path = Path(sweep_dir) / name
        path.write_text(render_table(t, fmt), encoding="utf-8")
        written.append(path)
    return written
