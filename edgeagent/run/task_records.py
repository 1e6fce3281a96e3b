"""The one builder of a task record, for every kind of run and for the unit a failure cut
short: totals over the unit's steps, its energy (all of it and per phase), retrieval, and
one rule for the context it ended at."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..events import StepRecord, TaskRecord
from ..meter import phase_joules, sum_joules, task_energy

NOT_FINISHED = "the task did not finish"


def step_totals(steps: Sequence[StepRecord]) -> dict[str, Any]:
    """A task record's token and time totals over its steps (live, replayed or cut short)."""
    return {
        "prefill_tokens": sum(s.prefill_tokens for s in steps),
        "decoded_tokens": sum(s.decoded_tokens for s in steps),
        "reused_tokens": sum(s.reused_tokens for s in steps),
        "prefill_ms": sum(s.prefill_ms for s in steps),
        "decode_ms": sum(s.decode_ms for s in steps),
        "tool_ms": sum(s.tool_ms for s in steps),
        "format_errors": sum(1 for s in steps if s.format_error),
    }


def task_costs(steps: Sequence[StepRecord]) -> dict[str, Any]:
    """A finished task record's totals over its steps: tokens and times (step_totals), the
    energy of all of them (null with the first reason) and of each phase."""
    energy, reason = task_energy(steps)
    return {**step_totals(steps), "energy_j": energy, "energy_null_reason": reason,
            **{f"energy_{phase}_j": phase_joules(steps, phase)
               for phase in ("prefill", "decode", "tool", "other")}}


def retrieval_totals(steps: Sequence[StepRecord]) -> dict[str, Any]:
    searched = [s for s in steps if s.t_retrieval_start_ns is not None]
    return {
        "retrieval_calls": len(searched),
        "retrieval_index_ms": sum(s.retrieval_index_ms or 0.0 for s in searched)
        if searched else None,
        "energy_retrieval_j": sum_joules([s.energy_retrieval.joules for s in searched])
        if searched else None,
    }


def final_context_tokens(steps: Sequence[StepRecord]) -> int:
    """Where the task's last generation ended: its prompt and what it decoded (the end
    token included, as `decoded_tokens` counts it)."""
    if not steps:
        return 0
    last = max(steps, key=lambda s: s.t_start_ns)
    return last.context_tokens + last.decoded_tokens


def task_record(unit: str, attempt: int, steps: Sequence[StepRecord], wall_ms: float, *,
                outcome: str, termination: str, grading_output: str,
                error: str | None = None, termination_detail: str | None = None,
                finished: bool = True) -> TaskRecord:
    """A unit's record from its steps. `finished=False`: a unit a failure or a stop cut short,
    whose energy is not claimed."""
    if finished:
        costs = task_costs(steps)
    else:
        costs = {**step_totals(steps), "energy_j": None, "energy_null_reason": NOT_FINISHED}
    energy = costs["energy_j"]
    return TaskRecord(
        task_id=unit, attempt=attempt, outcome=outcome, termination=termination,
        steps=len(steps), wall_ms=wall_ms, context_tokens_final=final_context_tokens(steps),
        **costs, grading_output=grading_output, error=error,
        termination_detail=termination_detail,
        average_w=energy / (wall_ms / 1000) if energy is not None and wall_ms > 0 else None,
        **retrieval_totals(steps),
    )
