"""The agents `edgeagent run --agent NAME` knows, checked before the model loads, and the
endpoint external ones share for the run (AgentContext): built in `edgeagent` (our loop) and
`single-shot`; external `mini-swe-agent` (host process, its commands in our sandbox), `aider`
(the real aider from its own environment, confined whole) and `cmd` (`--agent-cmd`, a program
confined whole)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent import LoopResult, repair_provenance
from ..engine import Engine
from ..errors import ConfigError
from ..events import EventSink
from ..sandbox import ProcessLimits, Workspace
from .agent_endpoint import AgentHost
from .command import check_template, run_command_agent

EXTERNAL_AGENTS = ("mini-swe-agent", "aider", "cmd")
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
    if agent == "aider":
        from .aider_env import aider_available

        missing = aider_available()
        if missing is not None:
            raise ConfigError(f"--agent aider: {missing}")


def agent_status() -> list[tuple[str, str]]:
    """(name, whether it can run here) for every agent `--agent` takes."""
    from .aider_env import aider_available, aider_program
    from .mini_swe import mini_swe_available

    mini, aider = mini_swe_available(), aider_available()
    return [("edgeagent", "ready (our loop, the default)"),
            ("single-shot", "ready"),
            ("mini-swe-agent", "ready" if mini is None else mini),
            ("aider", f"ready ({aider_program()})" if aider is None else aider),
            ("cmd", "ready (--agent-cmd 'TEMPLATE': any program)")]


def agent_provenance(config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": config.agent}
    if config.agent == "edgeagent":
        rounds = int(getattr(config, "repair", 0) or 0)
        out["draft_first"] = bool(getattr(config, "draft_first", True))
        out["repair"] = repair_provenance(rounds, getattr(config, "repair_strategy", "repair"))
        out["after_draft_steps"] = getattr(config, "after_draft_steps", None)
    if config.agent == "cmd":
        out["command"] = config.agent_cmd
    if config.agent == "mini-swe-agent":
        from importlib.metadata import PackageNotFoundError, version

        with contextlib.suppress(PackageNotFoundError):
            out["version"] = version("mini-swe-agent")
        out["config"] = "default.yaml (shipped), DefaultAgent, greedy"
    if config.agent == "aider":
        from .aider import aider_provenance

        out.update(aider_provenance())
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
    wall_s: float, stop_requested: Callable[[], bool | str], test_command: str | None = None,
) -> LoopResult:
    common = {"task_id": task_id, "attempt": attempt, "title": title, "issue": issue, "ws": ws,
              "host": agents.host, "max_steps": max_steps, "wall_s": wall_s,
              "log_dir": agents.log_dir, "stop_requested": stop_requested}
    if agent == "cmd":
        assert agent_cmd is not None
        return run_command_agent(template=agent_cmd, limits=process_limits, **common)
    if agent == "aider":
        from .aider import run_aider_task

        return run_aider_task(test_command=test_command, limits=process_limits, **common)
    from .mini_swe_run import run_mini_swe_task

    return run_mini_swe_task(limits=process_limits, **common)
