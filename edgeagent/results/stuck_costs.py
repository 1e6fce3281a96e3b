"""What stuck trajectories cost: the steps and seconds a task spent after its stuck point,
the step whose count reached N (N-1 steps in a row repeating calls already made with the
same outcomes; the stuck rule, agent/stuck.py).

In a run with the rule on, a stuck task ends at that step and the cost after it is zero;
in a run made with the rule off (`--stuck-after 0`), the same count says what the rule
would have saved, from the per-step `repeats` the loop records either way. Each task's
cost after its N-th repeat runs from the end of that step to the end of its last step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..agent import DEFAULT_STUCK_AFTER, first_stuck_step
from .metrics import Metric, RunData


@dataclass(frozen=True)
class StuckCost:
    stuck_after: int  # the N counted: the run's own, or the default when its rule was off
    rule_on: bool  # the run ended tasks by the rule
    recorded: bool  # the run's steps carry `repeats` (made after the rule existed)
    tasks_stuck: int  # tasks the run ended as `stuck`
    trajectories_reaching: int  # trajectories that reached the stuck point
    steps_after: int  # steps after the stuck point, over all trajectories
    seconds_after: float
    steps_total: int
    seconds_total: float  # task wall time, all tasks


def _trajectories(steps: Sequence[dict[str, Any]]) -> dict[tuple[str, int], list[dict]]:
    out: dict[tuple[str, int], list[dict]] = {}
    for s in steps:
        out.setdefault((s["task_id"], s["attempt"]), []).append(s)
    for run in out.values():
        run.sort(key=lambda s: s["step"])
    return out


def stuck_cost(data: RunData) -> StuckCost:
    configured = data.config.get("stuck_after")
    rule_on = isinstance(configured, int) and configured > 0
    n = configured if rule_on else DEFAULT_STUCK_AFTER
    recorded = "repeats" in data.extra_columns.get("steps", ()) or any(
        s.get("repeats") is not None for s in data.steps)
    reaching, steps_after, seconds_after = 0, 0, 0.0
    for run in _trajectories(data.steps).values():
        at = first_stuck_step([s.get("repeats") for s in run], n)
        if at is None:
            continue
        reaching += 1
        steps_after += len(run) - at - 1
        seconds_after += (run[-1]["t_tool_end_ns"] - run[at]["t_tool_end_ns"]) / 1e9
    return StuckCost(
        stuck_after=n, rule_on=rule_on, recorded=recorded,
        tasks_stuck=sum(1 for t in data.tasks if t["termination"] == "stuck"),
        trajectories_reaching=reaching, steps_after=steps_after, seconds_after=seconds_after,
        steps_total=len(data.steps), seconds_total=sum(t["wall_ms"] for t in data.tasks) / 1000,
    )


def stuck_metrics(data: RunData) -> list[Metric]:
    c = stuck_cost(data)
    why = None if c.recorded else "the run records no repeats (made before the stuck rule)"
    return [
        Metric("tasks_stuck", "tasks ended as stuck", c.tasks_stuck, "tasks"),
        Metric("stuck_excess_steps", f"steps after the stuck point (N={c.stuck_after})",
               c.steps_after if c.recorded else None, "steps", why, higher_is_better=False),
        Metric("stuck_excess_s", f"seconds after the stuck point (N={c.stuck_after})",
               c.seconds_after if c.recorded else None, "s", why, higher_is_better=False),
    ]


def stuck_lines(data: RunData) -> list[str]:
    """One or two lines for `edgeagent report`."""
    c = stuck_cost(data)
    if not c.recorded:
        return [f"stuck: {c.tasks_stuck} tasks ended as stuck; repeats not recorded (a run "
                "made before the stuck rule), so the cost of repeating is not counted"]
    share = (f" ({100 * c.steps_after / c.steps_total:.0f}% of {c.steps_total} steps, "
             f"{c.seconds_after:.1f} of {c.seconds_total:.1f} s)" if c.steps_total else "")
    if c.rule_on:
        return [f"stuck: {c.tasks_stuck} tasks ended by the stuck rule (after "
                f"{c.stuck_after - 1} steps in a row repeating calls already made, with the same "
                "outcomes)"]
    return [f"stuck: rule off in this run; {c.trajectories_reaching} trajectories reached "
            f"{c.stuck_after - 1} steps in a row repeating calls already made and spent "
            f"{c.steps_after} steps, "
            f"{c.seconds_after:.1f} s after it{share}: what the rule (N={c.stuck_after}) "
            "would have saved"]
