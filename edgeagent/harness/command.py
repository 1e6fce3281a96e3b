"""`--agent-cmd TEMPLATE`: any agent program, run whole inside the sandbox (it is untrusted
code) with the task's workspace as its working directory and our endpoint as its only network
(the sandbox relays its own 127.0.0.1:8080 to the run's server).

The template is a shell command line; its placeholders are filled shell-quoted ({{name}} is
the literal text {name}; other braces, such as inline code's, are left as they are):
  {issue}       the task's title and issue text
  {issue_file}  a file in the workspace holding the same text (removed before grading)
  {base_url}    the endpoint, http://127.0.0.1:8080/v1
  {model}       the served model's name
  {api_key}     a key for client libraries that insist on one
  {max_steps}   the task's step limit (requests the server will answer)
  {workdir}     the workspace's path
The same values are in the environment: OPENAI_BASE_URL (and OPENAI_API_BASE), OPENAI_API_KEY,
EDGEAGENT_MODEL, EDGEAGENT_ISSUE, EDGEAGENT_ISSUE_FILE, EDGEAGENT_MAX_STEPS.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..agent import LoopResult
from ..errors import ConfigError
from ..sandbox import ProcessLimits, Workspace, run_command
from .agent_endpoint import API_KEY, SANDBOX_PORT, AgentHost
from .outcome import external_result

PLACEHOLDERS = ("issue", "issue_file", "base_url", "model", "api_key", "max_steps", "workdir")
ISSUE_FILE = ".edgeagent-issue.md"


# {name} with a bare identifier is a placeholder; {{name}} is the literal text {name}; any
# other brace (inline code's dicts and sets) is left as written
_PLACEHOLDER = re.compile(r"(\{)?\{([A-Za-z_][A-Za-z0-9_]*)\}(\})?")


def check_template(template: str, where: str = "--agent-cmd") -> None:
    """A ConfigError naming the first unknown placeholder, or an empty command."""
    if not template.strip():
        raise ConfigError(f"{where}: the command is empty")
    for match in _PLACEHOLDER.finditer(template):
        escaped = match.group(1) and match.group(3)
        if not escaped and match.group(2) not in PLACEHOLDERS:
            raise ConfigError(
                f"{where}: unknown placeholder {{{match.group(2)}}}; known: "
                + ", ".join("{" + p + "}" for p in PLACEHOLDERS)
                + f" (a literal {{{match.group(2)}}}: write {{{{{match.group(2)}}}}})")


def agent_command(template: str, values: dict[str, str]) -> str:
    """The command line: the environment exported, then the template filled."""
    env = {"OPENAI_BASE_URL": values["base_url"], "OPENAI_API_BASE": values["base_url"],
           "OPENAI_API_KEY": values["api_key"], "EDGEAGENT_MODEL": values["model"],
           "EDGEAGENT_ISSUE": values["issue"], "EDGEAGENT_ISSUE_FILE": values["issue_file"],
           "EDGEAGENT_MAX_STEPS": values["max_steps"]}
    exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in env.items())

    def fill(match: re.Match[str]) -> str:
        if match.group(1) and match.group(3):
            return "{" + match.group(2) + "}"
        inner = shlex.quote(values[match.group(2)])
        return (match.group(1) or "") + inner + (match.group(3) or "")

    return exports + _PLACEHOLDER.sub(fill, template)


def run_command_agent(*, template: str, **task: Any) -> LoopResult:
    """Start the agent in the workspace, confined, with the task's limits; wait for it."""
    return run_confined_agent(lambda values: agent_command(template, values), **task)


def run_confined_agent(
    command_for: Callable[[dict[str, str]], str], *, task_id: str, attempt: int, title: str,
    issue: str, ws: Workspace, host: AgentHost, limits: ProcessLimits, max_steps: int,
    wall_s: float, log_dir: Path, stop_requested: Callable[[], bool | str] = lambda: False,
    show: tuple[str, ...] = (),
) -> LoopResult:
    """The command `command_for(values)` makes from the task's values (PLACEHOLDERS), run in
    the workspace, confined, with the task's limits and the endpoint its only network; `show`
    adds directories it may read (an agent's own environment). Its output is kept in
    log_dir."""
    if stop_requested():
        return LoopResult("interrupted", 0, 0)
    text = f"{title}\n\n{issue}"
    issue_path = ws.root / ISSUE_FILE
    issue_path.write_text(text)
    values = {"issue": text, "issue_file": str(issue_path), "base_url": host.sandbox_base_url,
              "model": host.model_name, "api_key": API_KEY, "max_steps": str(max_steps),
              "workdir": str(ws.root)}
    confined = dataclasses.replace(
        limits, timeout_s=wall_s, cpu_s=max(limits.cpu_s, int(wall_s) + 1),
        endpoint=(SANDBOX_PORT, str(host.socket_path)), show=(*limits.show, *show))
    command = command_for(values)
    try:
        result, tally = host.recorder.run_agent(
            task_id, attempt, title, issue, max_steps,
            lambda cancel: run_command(command, ws.root, confined, cancel=cancel),
            stop_requested)
    finally:
        issue_path.unlink(missing_ok=True)
    log_dir.mkdir(parents=True, exist_ok=True)
    (log_dir / f"{task_id}-{attempt}.log").write_text(result.output)
    return external_result(tally, exit_code=result.exit_code, timed_out=result.timed_out,
                           wall_s=wall_s, output=result.output, limit_hit=result.limit_hit)
