"""How long a task's command may run, as the run's config asks (a section of RunConfig: the
key's default, help and flag declared here once); the task's own limit and this default
stand behind it (suite.task_limits is the one rule)."""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import setting

DEFAULT_COMMAND_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class SandboxConfig:
    """The limit on each command a task runs (a section of RunConfig)."""

    command_timeout_s: float | None = setting(
        None, "seconds one command of a task (a tool call, its tests) may run",
        metavar="SECONDS", default_text=f"the task's own, else {DEFAULT_COMMAND_TIMEOUT_S:g}")
