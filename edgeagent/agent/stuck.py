"""The stuck rule: an agent that repeats itself without effect is stopped.

A step repeats the previous one when it makes the same tool call (name and arguments) and
gets the same tool output back, or when both calls failed (refused, or a command that exited
non-zero: a failing call's output may differ in noise such as a test run's timing, yet
nothing was gained). The count runs over
consecutive steps: any other call, or a step whose answer could not be parsed, starts it
again. The tool's own output is compared, not the observation the loop frames around it:
that frame adds notes ("the same call as before") that differ between repeats by design.

The past `core` runs of the 0.5B model (docs/results.md) ended 8 of 34 tasks in 18-43
consecutive identical failing `edit` calls, about 60% of all steps; no resolved trajectory
repeated a call. Every count from 2 to 18 would have stopped each of those loops; the
default of 4 gives the agent three chances after its first call (two with the loop's "same
call as before" note) before the task ends. It is provisional: the core runs with the rule
disabled say how many steps each count would have cut (`edgeagent report`, "stuck").
"""

from __future__ import annotations

import json
from typing import Any

DEFAULT_STUCK_AFTER = 4


def _signature(name: str, arguments: dict[str, Any], output: str, failed: bool) -> tuple:
    args = json.dumps(arguments, sort_keys=True, default=str)
    return (name, args, "<failed>" if failed else output)


class RepeatCounter:
    """How many consecutive steps, this one included, made the same call with the same
    outcome. One counter per task attempt."""

    def __init__(self) -> None:
        self._last: tuple | None = None
        self._count = 0

    def step(self, name: str, arguments: dict[str, Any], output: str, failed: bool) -> int:
        """Count one executed tool call; returns its run length (1: not a repeat)."""
        signature = _signature(name, arguments, output, failed)
        self._count = self._count + 1 if signature == self._last else 1
        self._last = signature
        return self._count

    def no_action(self) -> None:
        """A step without a tool call (a format error) breaks any run of repeats."""
        self._last, self._count = None, 0


def is_stuck(repeats: int | None, stuck_after: int) -> bool:
    """Whether a step with this run length ends the task (stuck_after 0: never)."""
    return stuck_after > 0 and repeats is not None and repeats >= stuck_after


def first_stuck_step(repeats: list[int | None], stuck_after: int) -> int | None:
    """Index of the first step at which the rule would have ended a trajectory whose steps
    had these run lengths (None: never); for reporting a run made with the rule off."""
    return next((i for i, r in enumerate(repeats) if is_stuck(r, stuck_after)), None)
