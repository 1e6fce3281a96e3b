"""One task with the real mini-swe-agent: its shipped default configuration (greedy), our
endpoint as its model (every request metered as a step), its commands in our sandbox with the
task's limits, its trajectory and log kept in the run directory's agents/ folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..agent import LoopResult
from ..sandbox import ProcessLimits, Workspace
from .agent_endpoint import AgentHost
from .mini_swe import MiniSweSpec, run_mini_swe_agent
from .outcome import external_result

# mini-swe-agent's own wall limit is checked between steps: ours kills it a little later
_HARD_WALL_GRACE_S = 30.0


def run_mini_swe_task(
    *, task_id: str, attempt: int, title: str, issue: str, ws: Workspace, host: AgentHost,
    limits: ProcessLimits, max_steps: int, wall_s: float, log_dir: Path,
    stop_requested: Callable[[], bool | str] = lambda: False,
) -> LoopResult:
    if stop_requested():
        return LoopResult("interrupted", 0, 0)
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = log_dir / f"{task_id}-{attempt}"
    spec = MiniSweSpec(
        base_url=host.base_url, model_name=host.model_name, issue=f"{title}\n\n{issue}",
        workdir=str(ws.root), step_limit=max_steps, wall_s=wall_s,
        command_timeout_s=limits.timeout_s, process_limits=limits,
        trajectory_path=str(stem) + ".traj.json", result_path=str(stem) + ".result.json")
    result, tally = host.recorder.run_agent(
        task_id, attempt, title, issue, max_steps,
        lambda cancel: run_mini_swe_agent(spec, timeout_s=wall_s + _HARD_WALL_GRACE_S,
                                          cancel=cancel),
        stop_requested)
    output = result.error or result.submission or ""
    return external_result(tally, exit_code=result.returncode, timed_out=result.timed_out,
                           wall_s=wall_s, output=output, exit_status=result.exit_status)

