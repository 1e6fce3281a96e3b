"""Our trajectories as MLPerf agentic conversations: from a run directory, or from a suite's
oracle solutions replayed through the real tools.

Mapping (our agent -> MLPerf rows):
- task start -> `user` row, turn 1: `content` = task prompt, `system` = our system prompt,
  `tools` = our tool specs as OpenAI function definitions;
- a step with a parsed action -> `assistant` row with one tool call
  `{"id": "call_<step>", "type": "function", "function": {"name", "arguments": JSON}}`,
  then a `tool` row whose one result is the observation the model read, `delay_seconds` =
  the measured tool wall time;
- a step with a format error -> a plain `assistant` row with the raw text as `content` and
  no `tool_calls`, then a `user` row with the format-error message (what the model read).
Turns number every row of a conversation from 1; the conversation id is the task id
(`task#attempt` for retries).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..agent import issue_reminder, openai_tools, system_prompt, task_prompt
from ..agent import observation as observation_text
from ..errors import StoreError
from ..rundir import TRAJECTORIES_DIR, read_config, read_run
from ..sandbox import TOOL_SPECS, ProcessLimits, Toolbox, ToolSpec, Workspace
from ..suite import Task, load_oracle, task_limits
from .dataset import Conversation, Row, ToolCall, ToolResult


def specs_from_openai(tools: Sequence[dict[str, Any]]) -> tuple[ToolSpec, ...]:
    specs = []
    for tool in tools:
        fn = tool["function"]
        params = fn.get("parameters") or {"type": "object", "properties": {}}
        specs.append(ToolSpec(fn["name"], fn.get("description", ""), params))
    return tuple(specs)


class _Builder:
    def __init__(self, conversation_id: str, system: str, user: str) -> None:
        self.id = conversation_id
        self.rows: list[Row] = [Row(conversation_id, 1, "user", content=user, system=system,
                                    tools=tuple(openai_tools()))]

    def _add(self, role: str, **fields: Any) -> None:
        self.rows.append(Row(self.id, len(self.rows) + 1, role, **fields))

    def action(self, step: int, name: str, args: dict[str, Any], observation: str,
               tool_s: float) -> None:
        call = ToolCall(f"call_{step}", name, json.dumps(args, ensure_ascii=False))
        self._add("assistant", tool_calls=(call,))
        self._add("tool", tool_results=(ToolResult(call.id, observation),),
                  delay_seconds=round(tool_s, 6))

    def format_error(self, raw: str, observation: str) -> None:
        # a plain assistant message: MLPerf's schema rejects `tool_calls: []`
        self._add("assistant", content=raw)
        self._add("user", content=observation)

    def build(self) -> Conversation:
        return Conversation(self.id, tuple(self.rows))


def _task_order(run_dir: Path) -> list[str]:
    row = read_run(run_dir, samples=False).run
    return json.loads(row["task_ids_json"]) if row and row["task_ids_json"] else []


def run_conversations(run_dir: Path) -> tuple[Conversation, ...]:
    """Every task attempt of a run directory, in the run's task order."""
    run_dir = Path(run_dir)
    traj_dir = run_dir / TRAJECTORIES_DIR
    if not traj_dir.is_dir():
        raise StoreError(f"no trajectories/ in {run_dir} (give a run directory made by "
                         "`edgeagent run`)")
    if "replay" in (read_config(run_dir) or {}):
        raise StoreError(f"{run_dir} is a replay run: its steps are generated turns over a "
                         "recorded history; export or replay the dataset it replayed instead")
    order = _task_order(run_dir)
    files = sorted(traj_dir.glob("*.jsonl"),
                   key=lambda p: (order.index(p.stem) if p.stem in order else len(order), p.stem))
    conversations = []
    for file in files:
        builders: dict[int, _Builder] = {}
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise StoreError(f"{file}:{n}: not a JSON line (a crashed run may leave a "
                                 "partial last line; remove it)") from None
            attempt = rec.get("attempt", 0)
            if rec.get("type") == "task_started":
                conv_id = rec["task_id"] if not attempt else f"{rec['task_id']}#{attempt}"
                builders[attempt] = _Builder(conv_id, rec["system_prompt"], rec["task_prompt"])
            elif rec.get("prompt") is not None:
                continue  # a step outside the conversation (the draft): not a turn of it
            elif rec.get("type") == "step" and attempt in builders:
                b = builders[attempt]
                if rec.get("action_name"):
                    b.action(rec["step"], rec["action_name"], rec.get("action_args") or {},
                             rec["observation"], rec.get("tool_ms", 0.0) / 1000)
                else:
                    b.format_error(rec.get("raw_output", ""), rec["observation"])
        conversations += [b.build() for _, b in sorted(builders.items())]
    if not conversations:
        raise StoreError(f"{run_dir}: the run recorded no task (nothing to export)")
    return tuple(conversations)


def oracle_conversation(task: Task, limits: ProcessLimits | None = None) -> Conversation:
    """The trajectory a model following the task's oracle would leave, built with the live
    loop's own prompts and observations and the real tools in a fresh workspace."""
    limits = limits or task_limits(task)
    with Workspace.create(task.repo_dir) as ws:
        toolbox = Toolbox(ws, task.test_command, limits)
        files = toolbox.repo_files(named_in=task.issue)
        reminder = issue_reminder(task.issue)
        builder = _Builder(task.id, system_prompt(TOOL_SPECS),
                           task_prompt(task.title, task.issue, files))
        for step, oracle_step in enumerate(load_oracle(task)):
            result = toolbox.call(oracle_step.tool, oracle_step.args)
            observation = observation_text(oracle_step.tool, result, result.output,
                                             reminder=reminder)
            builder.action(step, oracle_step.tool, oracle_step.args, observation,
                           result.wall_ms / 1000)
    return builder.build()
