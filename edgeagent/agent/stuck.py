"""The stuck rule: an agent that repeats itself without effect is stopped.

A step repeats an earlier one when it makes the same tool call (name and arguments) and
gets the same tool output back, or when both calls failed (refused, or a command that exited
non-zero: a failing call's output may differ in noise such as a test run's timing, yet
nothing was gained). The rule counts repeats of a cycle of up to MAX_PERIOD calls: the
same call N times in a row (period 1), or the same two or three calls in the same order
N times over, e.g. read_file, failing edit, read_file, failing edit, ... (period 2). A
step's count is the largest over the periods: how many times the current cycle has run,
this step completing it. Any other call, or a step whose answer could not be parsed,
breaks the cycle. The tool's own output is compared, not the observation the loop frames
around it: that frame adds notes ("the same call as before") that differ between repeats
by design.

The past `core` runs of the 0.5B model (docs/results.md) ended 8 of 34 tasks in 18-43
consecutive identical failing `edit` calls, about 60% of all steps; no resolved trajectory
repeated a call. Every count from 2 to 18 would have stopped each of those loops; the
default of 4 gives the agent three chances after its first call (two with the loop's "same
call as before" note) before the task ends. The 1.5B model's first tollgate task instead
alternated one read_file and one failing edit for 32 steps to a 22.8k-token context (about
49 s of prefill per step); a period-1 rule never fired there, hence the cycles. It is
provisional: the core runs with the rule disabled say how many steps each count would have
cut (`edgeagent report`, "stuck").
"""

from __future__ import annotations

import json
from typing import Any

DEFAULT_STUCK_AFTER = 4
# the longest cycle counted: read, edit, test is three calls
MAX_PERIOD = 3


def _signature(name: str, arguments: dict[str, Any], output: str, failed: bool) -> tuple:
    args = json.dumps(arguments, sort_keys=True, default=str)
    return (name, args, "<failed>" if failed else output)


class RepeatCounter:
    """How many times the current cycle of calls (period 1 to MAX_PERIOD) has run with the
    same outcomes, this step completing it. One counter per task attempt."""

    def __init__(self) -> None:
        self._history: list[tuple] = []
        self.period = 1  # the period of the last step's count

    def step(self, name: str, arguments: dict[str, Any], output: str, failed: bool) -> int:
        """Count one executed tool call; returns its cycle count (1: not a repeat)."""
        self._history.append(_signature(name, arguments, output, failed))
        best, self.period = 1, 1
        for period in range(1, MAX_PERIOD + 1):
            count = _cycles(self._history, period)
            if count > best:
                best, self.period = count, period
        return best

    def no_action(self) -> None:
        """A step without a tool call (a format error) breaks any cycle of repeats."""
        self._history.clear()
        self.period = 1


def _cycles(history: list[tuple], period: int) -> int:
    """How many whole times the last `period` calls repeat at the end of history: 1 plus
    the run of calls that equal the call `period` steps before them, in whole periods."""
    matched = 0
    i = len(history) - 1
    while i - period >= 0 and history[i] == history[i - period]:
        matched += 1
        i -= 1
    return 1 + matched // period


def is_stuck(repeats: int | None, stuck_after: int) -> bool:
    """Whether a step with this cycle count ends the task (stuck_after 0: never)."""
    return stuck_after > 0 and repeats is not None and repeats >= stuck_after


def first_stuck_step(repeats: list[int | None], stuck_after: int) -> int | None:
    """Index of the first step at which the rule would have ended a trajectory whose steps
    had these cycle counts (None: never); for reporting a run made with the rule off."""
    return next((i for i, r in enumerate(repeats) if is_stuck(r, stuck_after)), None)


def stuck_reason(repeats: int, period: int) -> str:
    """The termination detail of a task the rule ended."""
    if period == 1:
        return f"{repeats} consecutive identical calls with the same outcome"
    return f"the same {period} calls in the same order {repeats} times with the same outcomes"
