"""The agents `edgeagent run --agent NAME` knows, checked before the model loads, and the
endpoint external ones share for the run (AgentContext): built in `edgeagent` (our loop) and
`single-shot`; external `mini-swe-agent` (host process, its commands in our sandbox) and `cmd`
(`--agent-cmd`, a program confined whole)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent import LoopResult
from ..engine import Engine
from ..errors import ConfigError
from ..events import EventSink
from ..sandbox import ProcessLimits, Workspace
from .agent_endpoint import AgentHost
from .command import check_template, run_command_agent

EXTERNAL_AGENTS = ("mini-swe-agent", "cmd")
# where each task's agent output (and mini-swe-agent's trajectory) goes in the run directory
AGENT_LOG_DIR = "agents"


@dataclass(frozen=True)
class AgentContext:
    host: AgentHost
    log_dir: Path


def check_agent(agent: str, agent_cmd: str | None) -> None:
    """A ConfigError for an agent that cannot start here: a bad template, a missing extra."""
    if agent == "cmd" and agent_cmd is not None:
        check_template(agent_cmd)
    if agent == "mini-swe-agent":
        from .mini_swe import mini_swe_available

        missing = mini_swe_available()
        if missing is not None:
            raise ConfigError(f"--agent mini-swe-agent: {missing}")


def agent_provenance(config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": config.agent}
    if config.agent == "edgeagent":
        rounds = int(getattr(config, "repair", 0) or 0)
        out["draft_first"] = bool(getattr(config, "draft_first", True))
        out["repair"] = {"rounds": rounds, "strategy": "repair drafts shown the visible "
                         "tests' output, failing lines first"} if rounds else None
    if config.agent == "cmd":
        out["command"] = config.agent_cmd
    if config.agent == "mini-swe-agent":
        from importlib.metadata import PackageNotFoundError, version

        with contextlib.suppress(PackageNotFoundError):
            out["version"] = version("mini-swe-agent")
        out["config"] = "default.yaml (shipped), DefaultAgent, greedy"
    return out


@contextlib.contextmanager
def open_agents(agent: str, engine: Engine, sink: EventSink, run_dir: Path,
                model_name: str) -> Iterator[AgentContext | None]:
    """The run's endpoint while its tasks run (external agents only; None otherwise)."""
    if agent not in EXTERNAL_AGENTS:
        yield None
        return
    with AgentHost(engine, sink, model_name) as host:
        # absolute: the agent's processes run from other directories (a relative --out broke
        # mini-swe-agent: its host, started in the log folder, could not find its spec)
        yield AgentContext(host, run_dir.resolve() / AGENT_LOG_DIR)


def run_external(
    agent: str, agent_cmd: str | None, agents: AgentContext, *, task_id: str, attempt: int,
    title: str, issue: str, ws: Workspace, process_limits: ProcessLimits, max_steps: int,
    wall_s: float, stop_requested: Callable[[], bool | str],
) -> LoopResult:
    common = {"task_id": task_id, "attempt": attempt, "title": title, "issue": issue, "ws": ws,
              "host": agents.host, "max_steps": max_steps, "wall_s": wall_s,
              "log_dir": agents.log_dir, "stop_requested": stop_requested}
    if agent == "cmd":
        assert agent_cmd is not None
        return run_command_agent(template=agent_cmd, limits=process_limits, **common)
    from .mini_swe_run import run_mini_swe_task

    return run_mini_swe_task(limits=process_limits, **common)
