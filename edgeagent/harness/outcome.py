"""How an external agent's task ended, as the loop's terminations name it: a limit the server
enforced (step limit, context window) first, then the wall time, then the agent's own exit
(0: it says it is done, `submitted`; else `agent_error` with the last line it printed)."""

from __future__ import annotations

from ..agent import LoopResult
from ..serve import TaskTally


def external_result(tally: TaskTally, *, exit_code: int | None, timed_out: bool, wall_s: float,
                    output: str, limit_hit: str | None = None,
                    exit_status: str | None = None) -> LoopResult:
    """`exit_status`: the agent's own word for how it ended (mini-swe-agent's), if any."""
    steps, context = tally.steps, tally.final_context_tokens
    if tally.limit_hit is not None:
        return LoopResult(tally.limit_hit, steps, context, tally.detail)
    if timed_out:
        return LoopResult("wall_timeout", steps, context, f"over {wall_s:g} s: the agent was "
                          "stopped")
    if exit_status is not None and exit_status != "Submitted":
        return LoopResult(_named(exit_status), steps, context,
                          f"the agent ended {exit_status}: {last_line(output)}"[:500])
    if exit_code == 0:
        detail = "the agent exited 0" if exit_status is None else "the agent submitted"
        return LoopResult("submitted", steps, context, detail)
    why = limit_hit or last_line(output)
    return LoopResult("agent_error", steps, context,
                      f"the agent exited {exit_code}: {why}"[:500])


def _named(exit_status: str) -> str:
    """mini-swe-agent's exit statuses as our terminations."""
    return {"LimitsExceeded": "max_steps", "TimeExceeded": "wall_timeout",
            "RepeatedFormatError": "format_errors"}.get(exit_status, "agent_error")


def last_line(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"
