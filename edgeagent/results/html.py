"""One self-contained HTML file: verdict, metrics, tasks and the plots as inline SVG."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .metrics import Metric, RunData
from .plots import svg_plots
from .validity import Verdict

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right}.valid{color:#1a7f37}.invalid{color:#c62828}
.plots{display:flex;flex-wrap:wrap;gap:1em}.plots svg{max-width:540px;height:auto}
.note{color:#666;font-size:13px}
"""


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape('' if c is None else str(c))}</td>" for c in r) + "</tr>"
        for r in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(data: RunData, metrics: Sequence[Metric], verdict: Verdict,
                bandwidth_gbs: float | None, *, md_title: str,
                task_table: tuple[list[str], list[list[Any]]]) -> str:
    from .formats import fmt_value

    cls = "valid" if verdict.valid else "invalid"
    result = "VALID" if verdict.valid else "INVALID"
    reasons = "".join(f"<li>{escape(r)}</li>" for r in verdict.reasons)
    notes = "".join(f"<li>{escape(n)}</li>" for n in verdict.notes)
    metric_rows = [[m.label, fmt_value(m), m.n, m.null_reason or ""] for m in metrics]
    plots = "".join(f'<figure id="plot-{name}">{svg}</figure>' for name, svg in svg_plots(data))
    bw = f"{bandwidth_gbs:.1f} GB/s" if bandwidth_gbs else "not given"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(md_title)}</title>
<style>{_STYLE}</style></head><body>
<h1>edgeagent report</h1>
<p>{escape(md_title)}</p>
<h2 class="{cls}">Result is: {result}</h2>
<ul>{reasons}</ul>
<p class="note">checks passed or not applicable:</p><ul class="note">{notes}</ul>
<h2>Metrics</h2>
<p class="note">definitions: docs/metrics.md; memory bandwidth for the roofline: {bw}</p>
{_table(["metric", "value", "n", "note"], metric_rows)}
<h2>Tasks</h2>
{_table(*task_table)}
<h2>Plots</h2>
<div class="plots">{plots}</div>
</body></html>
"""
