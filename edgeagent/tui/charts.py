"""Charts drawn with unicode blocks into rich Text: textual has no chart widget, and three
small bar charts do not justify a plotting dependency.

Every series has its own fill pattern as well as its own colour (full, dark, medium, light
shade), and every chart a legend in words, so the charts read on a monochrome terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text

from ..events import StepRecord
from .state import PowerPoint

EIGHTHS = " ▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class Series:
    name: str
    glyph: str
    style: str


PHASE_SERIES = {
    "prefill": Series("prefill", "█", "#e5c07b"),
    "decode": Series("decode", "▓", "#61afef"),
    "tool": Series("tool", "▒", "#98c379"),
    "retrieval": Series("retrieval", "░", "#c678dd"),
    "other": Series("other", "·", "grey50"),
}
REUSED = Series("reused", "▒", "#56b6c2")
NEW = Series("new", "█", "#d19a66")


def legend_lines(series: Sequence[Series], width: int = 1000) -> list[Text]:
    """Glyph and whole name of every series, wrapped onto as many lines as the width needs:
    a name is never cut (a legend that reads "othe" names nothing)."""
    lines: list[Text] = [Text()]
    for s in series:
        item = len(s.name) + 2
        line = lines[-1]
        if line.plain and len(line.plain) + 1 + item > width:
            line = Text()
            lines.append(line)
        if line.plain:
            line.append(" ")
        line.append(s.glyph, style=s.style)
        line.append(f" {s.name}")
    return lines


def fit_title(title: str, details: Sequence[str], width: int) -> Text:
    """The chart's name in bold and as many of its details (most important first) as fit
    whole in `width`; a detail that does not fit is left out, never cut in the middle."""
    out = Text(title, style="bold")
    for detail in details:
        if len(out.plain) + 1 + len(detail) <= width:
            out.append(f" {detail}")
    return out


def _column(segments: Sequence[tuple[float, Series]], rows: int, scale: float) -> list[Text]:
    """One bar, bottom-up stacked segments, as `rows` cells from the top; the top cell of a
    bar that ends inside a cell is an eighth block."""
    tops: list[tuple[int, Series]] = []
    acc = 0.0
    for value, series in segments:
        acc += max(0.0, value)
        tops.append((round(acc * scale * 8), series))
    total = tops[-1][0] if tops else 0
    cells: list[Text] = []
    for r in range(rows):
        lo, hi = r * 8, r * 8 + 8
        if total <= lo:
            cells.append(Text(" "))
            continue
        mid = lo + 4 if total >= hi else (lo + total) / 2
        series = next((s for top, s in tops if top > mid), tops[-1][1])
        glyph = series.glyph if total >= hi else EIGHTHS[total - lo]
        cells.append(Text(glyph, style=series.style))
    return cells[::-1]


def bar_chart(
    title: str,
    bars: Sequence[Sequence[tuple[float, Series]]],
    series: Sequence[Series],
    width: int,
    height: int,
    unit: str,
    first_label: int = 1,
    peak: float | None = None,
) -> Text:
    """Title line (with the scale), bars, legend lines. `peak` fixes the scale (two charts
    compared side by side share one); by default the tallest bar shown fills the height."""
    out = Text(no_wrap=True, overflow="crop")
    width = max(1, width)
    keys = legend_lines(series, width)
    rows = max(1, height - 1 - len(keys))
    n = len(bars)
    per = width // n if n else width
    bar_w = max(1, min(4, per - 1)) if per >= 2 else 1
    gap = 1 if per >= 2 else 0
    fit = max(1, width // (bar_w + gap))
    shown = list(bars[-fit:])
    first = first_label + max(0, n - fit)
    tallest = max((sum(max(0.0, v) for v, _ in bar) for bar in shown), default=0.0)
    top = peak if peak is not None else tallest
    scale = rows / top if top > 0 else 0.0
    span = f"steps {first}-{first + len(shown) - 1}" if shown else "no steps yet"
    scale_word = "scale" if peak is not None else "max"
    out.append_text(fit_title(title, [f"{scale_word} {_fmt(top)} {unit}", f"· {span}"], width))
    out.append("\n")
    columns = [_column(bar, rows, scale) for bar in shown]
    for r in range(rows):
        line = Text()
        for col in columns:
            line.append_text(Text(col[r].plain * bar_w, style=col[r].style))
            if gap:
                line.append(" " * gap)
        out.append_text(line)
        out.append("\n")
    out.append_text(Text("\n").join(keys))
    return out


def context_chart(steps: Sequence[StepRecord], width: int, height: int,
                  peak: float | None = None) -> Text:
    """Context tokens per step; the part already in the KV cache (reused) shaded."""
    bars = [
        [(float(s.reused_tokens), REUSED), (float(s.context_tokens - s.reused_tokens), NEW)]
        for s in steps
    ]
    return bar_chart("context", bars, [REUSED, NEW], width, height, "tok",
                     steps[0].step + 1 if steps else 1, peak)


def step_phase_ms(s: StepRecord) -> dict[str, float]:
    retrieval = sum(
        v or 0.0 for v in (s.retrieval_embed_ms, s.retrieval_search_ms, s.retrieval_rerank_ms)
    )
    return {"prefill": s.prefill_ms, "decode": s.decode_ms, "tool": s.tool_ms,
            "retrieval": retrieval}


def time_chart(steps: Sequence[StepRecord], width: int, height: int,
               peak: float | None = None) -> Text:
    """Per-step stacked prefill / decode / tool / retrieval seconds."""
    order = ("prefill", "decode", "tool", "retrieval")
    bars = [
        [(ms / 1000, PHASE_SERIES[p]) for p, ms in step_phase_ms(s).items()] for s in steps
    ]
    return bar_chart("time/step", bars, [PHASE_SERIES[p] for p in order], width, height, "s",
                     steps[0].step + 1 if steps else 1, peak)


def context_peak(steps: Sequence[StepRecord]) -> float:
    """The tallest bar of context_chart: for one scale shared by two charts."""
    return float(max((s.context_tokens for s in steps), default=0))


def time_peak(steps: Sequence[StepRecord]) -> float:
    """The tallest bar of time_chart, in seconds."""
    return max((sum(step_phase_ms(s).values()) / 1000 for s in steps), default=0.0)


def power_chart(
    points: Sequence[PowerPoint],
    phase_at: Callable[[int], str],
    width: int,
    height: int,
    label: str | None,
    scope: str | None,
    window_s: float | None = 60.0,
    t_end_ns: int | None = None,
) -> Text:
    """A rolling power trace: one column per time slice, its fill the phase of that slice.

    window_s None: the whole span of `points` (a stored task); else the last window_s
    seconds up to t_end_ns (default: the newest point)."""
    out = Text(no_wrap=True, overflow="crop")
    width = max(1, width)
    keys = legend_lines([PHASE_SERIES[p] for p in ("prefill", "decode", "tool", "other")], width)
    rows = max(1, height - 1 - len(keys))
    if not label:
        out.append("power", style="bold")
        out.append("\nno power source found:\nenergy not measured")
        return out
    if not points:
        out.append("power", style="bold")
        out.append(f" {label} ({scope})\nno samples yet")
        return out
    end = t_end_ns or points[-1].t_ns
    start = points[0].t_ns if window_s is None else end - int(window_s * 1e9)
    start = max(start, points[0].t_ns)
    span = max(1, end - start)
    sums = [0.0] * width
    counts = [0] * width
    for p in points:
        if start <= p.t_ns <= end:
            i = min(width - 1, (p.t_ns - start) * width // span)
            sums[i] += p.watts
            counts[i] += 1
    watts = [sums[i] / counts[i] if counts[i] else None for i in range(width)]
    peak = max((w for w in watts if w is not None), default=0.0)
    scale = rows / peak if peak > 0 else 0.0
    now = next((w for w in reversed(watts) if w is not None), None)
    columns = []
    for i, w in enumerate(watts):
        if w is None:
            columns.append([Text(" ")] * rows)
            continue
        mid = start + (2 * i + 1) * span // (2 * width)
        series = PHASE_SERIES.get(phase_at(mid), PHASE_SERIES["other"])
        columns.append(_column([(w, series)], rows, scale))
    out.append_text(fit_title("power", [f"{_fmt(now)} W", f"({scope})", f"max {_fmt(peak)}",
                                        f"· last {span / 1e9:.0f} s"], width))
    out.append("\n")
    for r in range(rows):
        for col in columns:
            out.append_text(col[r])
        out.append("\n")
    out.append_text(Text("\n").join(keys))
    return out


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"
