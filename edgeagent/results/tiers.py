"""A run's tasks per tier: graded tiers (easy, medium, hard) and their total, and the guided
tier (the issue states the fix) kept apart, so a guided "resolved" never counts as an
agent's.

The run records each task's tier in provenance (`task_tiers`); a run made before that, or a
replay, has none, and the tier table is left out with that reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..suite import GRADED_TIERS, GUIDED_TIER
from .metrics import Metric, RunData
from .percentiles import percentile

GRADED_TOTAL = "graded"  # the row that adds up easy, medium and hard
NO_TIER = "no tier"
GUIDED_NOTE = "guided: the issue states the fix, a check of the loop's mechanics"


@dataclass(frozen=True)
class TierRow:
    tier: str  # easy | medium | hard | graded | guided | no tier
    tasks: int
    resolved: int
    terminations: tuple[tuple[str, int], ...]  # most frequent first
    steps: int
    format_errors: int  # steps whose answer held no readable tool call
    wall_s: float
    context_p50: float | None
    context_max: int | None
    share_prefill: float | None  # of the tier's task wall time
    share_decode: float | None
    share_tool: float | None


def task_tiers(data: RunData) -> dict[str, str | None]:
    """Task id -> tier as the run recorded it ({} when it recorded none)."""
    tiers = data.provenance.task_tiers
    return dict(tiers) if isinstance(tiers, dict) else {}


def termination_counts(tasks: Sequence[dict[str, Any]]) -> tuple[tuple[str, int], ...]:
    """How the tasks ended, the most frequent termination first."""
    return tuple(Counter(t["termination"] for t in tasks).most_common())


def format_errors_by_attempt(steps: Sequence[dict[str, Any]]) -> Counter[tuple[str, int]]:
    """(task_id, attempt) -> how many of its steps were format errors."""
    return Counter((s["task_id"], s["attempt"]) for s in steps
                   if s.get("format_error") is not None)


def tier_row(tier: str, tasks: Sequence[dict[str, Any]],
             format_errors: Counter[tuple[str, int]]) -> TierRow:
    wall_ms = sum(t["wall_ms"] for t in tasks)
    share = lambda key: (sum(t[key] for t in tasks) / wall_ms) if wall_ms else None  # noqa: E731
    contexts = [t["context_tokens_final"] for t in tasks]
    return TierRow(
        tier=tier,
        tasks=len(tasks),
        resolved=sum(1 for t in tasks if t["outcome"] == "resolved"),
        terminations=termination_counts(tasks),
        steps=sum(t["steps"] for t in tasks),
        format_errors=sum(format_errors[(t["task_id"], t["attempt"])] for t in tasks),
        wall_s=wall_ms / 1000,
        context_p50=percentile(contexts, 50) if contexts else None,
        context_max=max(contexts) if contexts else None,
        share_prefill=share("prefill_ms"),
        share_decode=share("decode_ms"),
        share_tool=share("tool_ms"),
    )


def tasks_by_tier(data: RunData) -> dict[str, list[dict[str, Any]]]:
    """Tier -> the run's task rows in it, by the tiers the run recorded (NO_TIER for a task
    it recorded none for)."""
    tiers = task_tiers(data)
    groups: dict[str, list[dict[str, Any]]] = {}
    for t in data.tasks:
        groups.setdefault(tiers.get(t["task_id"]) or NO_TIER, []).append(t)
    return groups


def tier_rows(data: RunData) -> list[TierRow]:
    """easy, medium, hard, their graded total, guided, then tasks without a tier; a row only
    where the run has such tasks. [] when the run recorded no tiers."""
    if not task_tiers(data):
        return []
    groups = tasks_by_tier(data)
    errors = format_errors_by_attempt(data.steps)
    rows = [tier_row(tier, groups[tier], errors) for tier in GRADED_TIERS if tier in groups]
    graded = [t for tier in GRADED_TIERS for t in groups.get(tier, [])]
    if graded:
        rows.append(tier_row(GRADED_TOTAL, graded, errors))
    rows += [tier_row(tier, groups[tier], errors) for tier in (GUIDED_TIER, NO_TIER)
             if tier in groups]
    return rows


def terminations_text(terminations: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{name} {n}" for name, n in terminations) or "-"


def _pct(x: float | None) -> str:
    return f"{100 * x:.0f}%" if x is not None else "-"


TIER_HEADER = ["tier", "resolved", "terminations", "steps", "format errors", "wall s",
               "final ctx p50", "final ctx max", "prefill", "decode", "tool"]


def tier_table(data: RunData) -> list[list[str]]:
    """The rows of TIER_HEADER, as text cells."""
    return [[r.tier, f"{r.resolved}/{r.tasks}", terminations_text(r.terminations),
             str(r.steps), str(r.format_errors), f"{r.wall_s:.1f}",
             f"{r.context_p50:.0f}" if r.context_p50 is not None else "-",
             str(r.context_max) if r.context_max is not None else "-",
             _pct(r.share_prefill), _pct(r.share_decode), _pct(r.share_tool)]
            for r in tier_rows(data)]


def tier_lines(data: RunData) -> list[str]:
    """The tier table as text lines for `edgeagent report` ([] when no tiers recorded)."""
    rows = tier_table(data)
    if not rows:
        return []
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(TIER_HEADER)]
    fmt = lambda cells: "  " + "  ".join(  # noqa: E731
        c.ljust(w) if i in (0, 1, 2) else c.rjust(w)
        for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
    lines = ["", "by tier (graded: the issue describes the problem; " + GUIDED_NOTE + "):",
             fmt(TIER_HEADER)]
    lines += [fmt(r) for r in rows]
    return lines


def tier_metrics(data: RunData) -> list[Metric]:
    """Resolved rates of the graded tiers together and of the guided tier, apart."""
    rows = {r.tier: r for r in tier_rows(data)}
    out = []
    for key, label in ((GRADED_TOTAL, "graded (easy/medium/hard)"),
                       (GUIDED_TIER, "guided (the issue states the fix)")):
        row = rows.get(key)
        why = ("the run records no task tiers" if not rows
               else None if row else f"no {key} task in this run")
        out.append(Metric(f"{key}_resolved_rate", f"{label} resolved / attempted",
                          row.resolved / row.tasks if row else None, "fraction", why,
                          n=row.tasks if row else None, higher_is_better=True))
    return out
