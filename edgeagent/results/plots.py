"""The report's plots (matplotlib, an optional extra): each draws on a given Axes so the HTML
report (one SVG per plot) and the README's PNG (all plots in one figure) share the code."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from .metrics import PHASES, RunData, phase_ms, step_metrics

COLORS = {"prefill": "#4c72b0", "decode": "#dd8452", "tool": "#55a868", "other": "#8c8c8c",
          "rest": "#d0d0d0"}


def pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, never a window
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UserError(
            "html reports and plots need matplotlib: pip install 'edgeagent[plots]' "
            "(or use --format text|md|json|csv)"
        ) from exc
    return plt


def _integer_ticks() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _task_steps(data: RunData) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for s in sorted(data.steps, key=lambda s: s["t_start_ns"]):
        out.setdefault(s["task_id"], []).append(s)
    return out


def _empty(ax: Any, text: str) -> str:
    """Say in the panel why it is empty; the reason is returned so that the HTML report can
    leave the panel out and say it in words instead."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])
    return text


def _estimated(data: RunData) -> str:
    return " (ESTIMATED)" if data.provenance.power_total.get("estimated") else ""


def plot_context_growth(ax: Any, data: RunData) -> str | None:
    ax.set_title("context growth per task")
    for task, steps in _task_steps(data).items():
        xs = [s["step"] + 1 for s in steps]
        line = ax.plot(xs, [s["context_tokens"] for s in steps], marker="o", label=task)[0]
        ax.plot(xs, [s["reused_tokens"] for s in steps], ls=":", color=line.get_color())
    ax.set_xlabel("step (dotted: tokens reused from the KV cache)")
    ax.set_ylabel("context tokens")
    ax.xaxis.set_major_locator(_integer_ticks())  # steps are whole: no tick at step 1.5
    if not data.steps:
        return _empty(ax, "no steps")
    ax.legend(fontsize=7)
    return None


def plot_step_latency(ax: Any, data: RunData) -> str | None:
    ax.set_title("per-step latency by phase")
    steps = sorted(data.steps, key=lambda s: s["t_start_ns"])
    if not steps:
        return _empty(ax, "no steps")
    xs = list(range(len(steps)))
    bottom = [0.0] * len(steps)
    for phase in PHASES:
        h = [phase_ms(s, phase) / 1000 for s in steps]
        ax.bar(xs, h, bottom=bottom, color=COLORS[phase], label=phase, width=0.8)
        bottom = [b + v for b, v in zip(bottom, h, strict=True)]
    starts = [i for i, s in enumerate(steps) if i == 0 or s["task_id"] != steps[i - 1]["task_id"]]
    ax.set_xticks(starts, [steps[i]["task_id"] for i in starts], fontsize=7, rotation=20)
    ax.set_ylabel("seconds")
    ax.legend(fontsize=7)
    return None


def plot_power_trace(ax: Any, data: RunData) -> str | None:
    ax.set_title("device power with phase bands" + _estimated(data))
    if not data.power:
        return _empty(ax, "energy not measured (no power source)")
    t0 = data.power[0][0]
    ax.plot([(t - t0) / 1e9 for t, _ in data.power], [w for _, w in data.power], color="black",
            lw=0.8)
    edges = {"prefill": ("t_start_ns", "t_first_token_ns"),
             "decode": ("t_first_token_ns", "t_decode_end_ns"),
             "tool": ("t_tool_start_ns", "t_tool_end_ns")}
    seen: set[str] = set()
    for s in data.steps:
        for phase, (a, b) in edges.items():
            ax.axvspan((s[a] - t0) / 1e9, (s[b] - t0) / 1e9, color=COLORS[phase], alpha=0.3,
                       lw=0, label=None if phase in seen else phase)
            seen.add(phase)
    ax.set_xlabel("seconds since the first sample")
    ax.set_ylabel("watts")
    ax.legend(fontsize=7)
    return None


def plot_energy_per_task(ax: Any, data: RunData) -> str | None:
    ax.set_title("energy per task" + _estimated(data))
    tasks = [t for t in data.tasks if t.get("energy_j") is not None]
    if not tasks:
        return _empty(ax, "energy not measured")
    xs = list(range(len(tasks)))
    bottom = [0.0] * len(tasks)
    for phase in PHASES:
        h = [t.get(f"energy_{phase}_j") or 0.0 for t in tasks]
        ax.bar(xs, h, bottom=bottom, color=COLORS[phase], label=phase)
        bottom = [b + v for b, v in zip(bottom, h, strict=True)]
    rest = [max(0.0, t["energy_j"] - b) for t, b in zip(tasks, bottom, strict=True)]
    ax.bar(xs, rest, bottom=bottom, color=COLORS["rest"], label="grading, setup")
    ax.set_xticks(xs, [t["task_id"] for t in tasks], fontsize=7, rotation=20)
    ax.set_ylabel("joules")
    ax.legend(fontsize=7)
    return None


def plot_prefill_throughput(ax: Any, data: RunData) -> str | None:
    ax.set_title("prefill throughput vs context length")
    rows = [r for r in step_metrics(data) if r["prefill_tok_s"]]
    if not rows:
        return _empty(ax, "no step prefilled tokens")
    sc = ax.scatter([r["context_tokens"] for r in rows], [r["prefill_tok_s"] for r in rows],
                    c=[r["cache_reuse_ratio"] or 0 for r in rows], cmap="viridis", vmin=0,
                    vmax=1, s=[10 + r["prefill_tokens"] / 10 for r in rows])
    ax.figure.colorbar(sc, ax=ax, label="cache reuse ratio")
    ax.set_xlabel("context tokens (size: tokens prefilled)")
    ax.set_ylabel("prefill tok/s")
    return None


PLOTS: list[tuple[str, Callable[[Any, RunData], str | None]]] = [
    ("context", plot_context_growth),
    ("step_latency", plot_step_latency),
    ("power", plot_power_trace),
    ("energy", plot_energy_per_task),
    ("prefill", plot_prefill_throughput),
]


CAPTIONS = {
    "context": "Context tokens at each step of each task (solid) and the part of them reused "
               "from the KV cache (dotted); the gap is what each step prefilled.",
    "step_latency": "Wall time of every step in run order, stacked by phase; tick labels "
                    "mark where each task starts.",
    "power": "Device power over the run (the meter's total), shaded by the phase each "
             "moment belongs to.",
    "energy": "Energy of each task split by phase; the grey top is grading and setup, "
              "outside the steps.",
    "prefill": "Prefill throughput of each step against its context length; colour: the "
               "share reused from the KV cache, size: tokens prefilled.",
}


@dataclass(frozen=True)
class Figure:
    name: str
    svg: str | None  # None: nothing to draw, see `empty`
    caption: str
    empty: str | None = None  # why the plot has nothing to show


def svg_plots(data: RunData) -> list[Figure]:
    """Each plot as inline SVG text with its caption; a plot with nothing to show (no power
    source, no steps) is not drawn, only its reason kept."""
    plt = pyplot()
    out = []
    for name, draw in PLOTS:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        empty = draw(ax, data)
        if empty is not None:
            plt.close(fig)
            out.append(Figure(name, None, CAPTIONS[name], empty))
            continue
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        plt.close(fig)
        svg = buf.getvalue()
        # drop the XML prolog for inlining
        out.append(Figure(name, svg[svg.index("<svg"):], CAPTIONS[name]))
    return out


def save_png(data: RunData, path: Any, dpi: int = 80, summary: str = "") -> None:
    """All plots in one PNG (for a README), `summary` text in the sixth panel."""
    plt = pyplot()
    fig, axes = plt.subplots(3, 2, figsize=(12, 10.5))
    for ax, (_, draw) in zip(axes.flat, PLOTS, strict=False):
        draw(ax, data)
    axes.flat[-1].axis("off")
    axes.flat[-1].text(0, 1, summary, va="top", family="monospace", fontsize=8, wrap=True)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=dpi)
    plt.close(fig)
