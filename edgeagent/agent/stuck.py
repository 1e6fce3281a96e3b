"""The stuck rule: an agent that repeats itself without effect is stopped.

A step repeats when it makes a tool call (name and arguments) that this attempt already
made and gets the same tool output back, or when both calls failed (refused, or a command
that exited non-zero: a failing call's output may differ in noise such as a test run's
timing, yet nothing was gained). A step's count is 1 for a new call or a new outcome, and
one more than the previous step's for a repeat: N means the last N-1 steps taught the agent
nothing it had not seen. That covers one call repeated in a row (counts 1, 2, 3, 4) and
cycles of any length: read_file, failing edit, read_file, failing edit (1, 1, 2, 3), or a
`grep` through twelve files that comes round to the first again. A step whose answer could
not be parsed sets the count back to 0; what was seen stays seen. The tool's own output is
compared, not the observation the loop frames around it: that frame adds notes ("the same
call as before") that differ between repeats by design.

The past `core` runs of the 0.5B model (docs/results.md) ended 8 of 34 tasks in 18-43
consecutive identical failing `edit` calls, about 60% of all steps; no resolved trajectory
repeated a call. Every count from 2 to 18 would have stopped each of those loops; the
default of 4 gives the agent three chances after its first call (two with the loop's "same
call as before" note) before the task ends. The 1.5B model's first tollgate task instead
alternated one read_file and one failing edit for 32 steps to a 22.8k-token context (about
49 s of prefill per step), which a rule for one call in a row never stopped; with a
workflow prompt that sends it searching, it cycled `grep` through every file of a package.
It is provisional: the core runs with the rule disabled say how many steps each count would
have cut (`edgeagent report`, "stuck").
"""

from __future__ import annotations

import json
from typing import Any

# the rule's length: a run setting's default (the config takes it from here)
DEFAULT_STUCK_AFTER = 4


def _signature(name: str, arguments: dict[str, Any], output: str, failed: bool) -> tuple:
    args = json.dumps(arguments, sort_keys=True, default=str)
    return (name, args, "<failed>" if failed else output)


class RepeatCounter:
    """How many steps in a row, this one included, repeated a call the attempt had already
    made with the same outcome, plus one. One counter per task attempt."""

    def __init__(self) -> None:
        self._seen: set[tuple] = set()
        self._count = 0

    def step(self, name: str, arguments: dict[str, Any], output: str, failed: bool) -> int:
        """Count one executed tool call; returns its count (1: something new)."""
        signature = _signature(name, arguments, output, failed)
        self._count = self._count + 1 if signature in self._seen else 1
        self._seen.add(signature)
        return self._count

    def no_action(self) -> None:
        """A step without a tool call (a format error) breaks the run of repeats."""
        self._count = 0


def is_stuck(repeats: int | None, stuck_after: int) -> bool:
    """Whether a step with this count ends the task (stuck_after 0: never)."""
    return stuck_after > 0 and repeats is not None and repeats >= stuck_after


def first_stuck_step(repeats: list[int | None], stuck_after: int) -> int | None:
    """Index of the first step at which the rule would have ended a trajectory whose steps
    had these counts (None: never); for reporting a run made with the rule off."""
    return next((i for i, r in enumerate(repeats) if is_stuck(r, stuck_after)), None)


def stuck_reason(repeats: int) -> str:
    """The termination detail of a task the rule ended."""
    if repeats == 2:
        return "the step repeated a call already made, with the same outcome"
    return (f"{repeats - 1} steps in a row repeated calls already made, with the same "
            "outcomes")
