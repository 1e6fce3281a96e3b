"""One self-contained HTML file: verdict, metrics, tasks and the plots as inline SVG."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from .metrics import RunData
from .plots import svg_plots
from .validity import Verdict, verdict_lines

PAGE_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n,th.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.valid{color:#1a7f37}.invalid{color:#c62828}
.plots{display:flex;flex-wrap:wrap;gap:1em}.plots svg{max-width:540px;height:auto}
figure{margin:0;max-width:540px}figcaption{font-size:13px;color:#444;margin-top:.3em}
.note{color:#666;font-size:13px}pre.defs{white-space:pre-wrap;font-size:12px}
"""

# where the metric definitions live in a source checkout; a report made from an installed
# wheel (no docs/) links the page by its name only
_METRICS_MD = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
# a number, with an optional unit or percent sign: right-aligned, never wrapped
_NUMBER = re.compile(r"^[-+]?\d[\d,]*(\.\d+)?(e[-+]?\d+)?( ?%| [^\s]+)?$")


def _is_number(cell: Any) -> bool:
    if isinstance(cell, bool):
        return False
    if isinstance(cell, (int, float)):
        return True
    return isinstance(cell, str) and bool(_NUMBER.match(cell.strip()))


def _cell(c: Any, numeric_column: bool) -> str:
    text = escape("" if c is None else str(c))
    return (f'<td class="n">{text}</td>' if _is_number(c) or numeric_column and c in (None, "n/a")
            else f"<td>{text}</td>")



def html_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Numbers right-aligned and kept on one line (a column of values reads down its
    decimal point, and "389.8 tasks/h" never breaks), text left-aligned."""
    numeric = [bool(rows) and all(_is_number(r[i]) or r[i] in (None, "", "n/a") for r in rows)
               for i in range(len(header))]
    head = "".join(f'<th class="n">{escape(str(h))}</th>' if numeric[i]
                   else f"<th>{escape(str(h))}</th>" for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(_cell(c, numeric[i]) for i, c in enumerate(r)) + "</tr>"
                   for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _figures(data: RunData) -> tuple[str, str]:
    """The drawn plots, each with a numbered caption; and a note naming the plots left out
    because they had nothing to show (an empty panel says less than one sentence)."""
    drawn, left_out = [], []
    for fig in svg_plots(data):
        if fig.svg is None:
            left_out.append(f"{fig.name.replace('_', ' ')} ({fig.empty})")
            continue
        n = len(drawn) + 1
        drawn.append(f'<figure id="plot-{fig.name}">{fig.svg}'
                     f"<figcaption><b>Figure {n}.</b> {escape(fig.caption)}</figcaption>"
                     "</figure>")
    note = (f'<p class="note">not plotted: {escape("; ".join(left_out))}</p>'
            if left_out else "")
    return "".join(drawn), note


def _definitions() -> tuple[str, str]:
    """The link to the metric definitions and, where the page is found, the page itself
    inline: the report is one file that may be read far from this checkout."""
    if not _METRICS_MD.is_file():
        return "docs/metrics.md in the edgeagent source (not installed here)", ""
    text = _METRICS_MD.read_text(encoding="utf-8")
    return ('<a href="#definitions">docs/metrics.md</a> (included at the end)',
            '<details id="definitions"><summary>Metric definitions (docs/metrics.md)</summary>'
            f'<pre class="defs">{escape(text)}</pre></details>')


def render_html(data: RunData, metric_rows: Sequence[Sequence[Any]], verdict: Verdict,
                bandwidth_gbs: float | None, *, md_title: str,
                task_table: tuple[list[str], list[list[Any]]],
                tier_table: tuple[list[str], list[list[str]]] | None = None,
                note_lines: Sequence[str] = ()) -> str:
    """The page; `metric_rows` come formatted (formats.metric_rows, as md shows them), so
    that this module needs nothing of formats, which calls it."""
    # the same verdict as `edgeagent check`: VALID, SMOKE (a smoke check) or INVALID
    result = verdict_lines(verdict)[0].removeprefix("Result is: ")
    cls = "invalid" if verdict.result == "INVALID" else "valid"
    reasons = "".join(f"<li>{escape(r)}</li>" for r in verdict.reasons)
    notes = "".join(f"<li>{escape(n)}</li>" for n in verdict.notes)
    plots, not_plotted = _figures(data)
    defs_link, defs = _definitions()
    bw = f"{bandwidth_gbs:.1f} GB/s" if bandwidth_gbs else "not given"
    tiers = ""
    if tier_table is not None and tier_table[1]:
        from .tiers import GUIDED_NOTE

        tiers = (f'<h2>Tiers</h2><p class="note">graded: the issue describes the problem; '
                 f"{escape(GUIDED_NOTE)}</p>{html_table(*tier_table)}")
    stuck_html = "".join(f'<p class="note">{escape(line)}</p>' for line in note_lines)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(md_title)}</title>
<style>{PAGE_STYLE}</style></head><body>
<h1>edgeagent report</h1>
<p>{escape(md_title)}</p>
<h2 class="{cls}">Result is: {result}</h2>
<ul>{reasons}</ul>
<p class="note">checks passed or not applicable:</p><ul class="note">{notes}</ul>
<h2>Metrics</h2>
<p class="note">definitions: {defs_link}; memory bandwidth for the roofline: {bw}</p>
{html_table(["metric", "value", "n", "note"], metric_rows)}
{tiers}
{stuck_html}
<h2>Tasks</h2>
{html_table(*task_table)}
<h2>Plots</h2>
<div class="plots">{plots}</div>
{not_plotted}
{defs}
</body></html>
"""
