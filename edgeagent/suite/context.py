"""How large the agent's context grows along a task's oracle, counted with the model's tokenizer.

The oracle is replayed as if a model had produced it: each step's action is the call the
grammar makes the model write, each observation is cut to the agent's observation budget and
framed as prompt.observation frames it, and the whole conversation is rendered with the GGUF's
own chat template, with native tool calls where the template has a tool-call family (the
format of replay and of the issue-21 live runs; `--tool-format native`), else the text
protocol. Only the tokenizer is loaded
(vocab_only), so this takes a fraction of a second per task. The numbers estimate what a
perfect agent would see; a real run re-reads, errs and retries, and usually grows larger.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent import issue_reminder, observation, openai_tools, system_prompt, task_prompt
from ..engine import Message, ToolCall, Vocabulary, call_id
from ..sandbox import TOOL_SPECS, ToolResult
from .schema import Task
from .validate import ContextProbe

# The agent loop's default observation budget (AgentLimits.observation_tokens).
OBSERVATION_TOKENS = 1024
# Bump when the way context is estimated changes, so cached estimates are recomputed.
_ESTIMATE_VERSION = 3  # 2: native tool calls where the template has them; 3: read_file says
# what lies outside a range it was asked for


def default_tokenizer_path() -> tuple[Path | None, str | None]:
    """The default model's GGUF if present (never downloaded here), else None and why."""
    from ..models import DEFAULT_MODEL, KNOWN_MODELS, models_dir

    path = models_dir() / KNOWN_MODELS[DEFAULT_MODEL].filename
    if path.is_file():
        return path, None
    return None, (
        f"default model not present at {path} (run `edgeagent models pull {DEFAULT_MODEL}`"
        " to measure context tokens)"
    )


def action_text(tool: str, args: dict[str, Any]) -> str:
    """The tool call as the grammar-constrained model writes it."""
    return json.dumps({"name": tool, "arguments": args}, ensure_ascii=False)


class ContextEstimator(ContextProbe):
    """Counts the prompt the agent would see at each oracle step."""

    def __init__(self, tokenizer: Vocabulary | None, note: str | None = None,
                 observation_tokens: int = OBSERVATION_TOKENS) -> None:
        self.tokenizer = tokenizer
        self.note = note if tokenizer is None else None
        self.observation_tokens = observation_tokens
        self.messages: list[Message] = []
        self.reminder: str | None = None
        native = tokenizer is not None and tokenizer.tool_family is not None
        self.tools = openai_tools(TOOL_SPECS) if native else None
        self._last_prompt = 0
        self._last_action = 0

    def start(self, task: Task, repo_files: Sequence[str]) -> None:
        self.reminder = issue_reminder(task.issue)
        self.messages = [
            Message("system", system_prompt(TOOL_SPECS, native=self.tools is not None)),
            Message("user", task_prompt(task.title, task.issue, repo_files)),
        ]

    def step(self, tool: str, args: dict[str, Any], result: ToolResult) -> int | None:
        if self.tokenizer is None:
            return None
        tok = self.tokenizer
        self._last_prompt = len(tok.prompt_tokens(self.messages, self.tools))
        text = tok.truncate(result.output, self.observation_tokens)
        seen = observation(tool, result, text, reminder=self.reminder)
        if self.tools is not None:
            call = ToolCall(call_id(len(self.messages)), tool,
                            json.dumps(args, ensure_ascii=False))
            turn = Message("assistant", None, tool_calls=(call,))
            action = tok.template.turn_text(turn, self.tools) or action_text(tool, args)
            self.messages += [turn, Message("tool", seen, tool_call_id=call.id)]
        else:
            action = action_text(tool, args)
            self.messages += [Message("assistant", action), Message("user", seen)]
        self._last_action = len(tok.ids(action)) + 1  # + the end-of-turn token
        return self._last_prompt

    def final(self) -> int | None:
        if self.tokenizer is None:
            return None
        return self._last_prompt + self._last_action


# --------------------------------------------------------------------------- cache


def cache_dir() -> Path:
    env = os.environ.get("EDGEAGENT_CACHE_DIR")
    base = Path(env).expanduser() if env else Path.home() / ".cache" / "edgeagent"
    return base / "task-context"


def task_fingerprint(task: Task, model_path: Path | None) -> str:
    """Changes when the task's files, the tokenizer or the prompts change."""
    h = hashlib.sha256()
    h.update(f"v{_ESTIMATE_VERSION}\0{OBSERVATION_TOKENS}\0".encode())
    h.update(system_prompt(TOOL_SPECS).encode())
    h.update(system_prompt(TOOL_SPECS, native=True).encode())
    if model_path is not None:
        st = model_path.stat()
        h.update(f"{model_path.name}\0{st.st_size}\0".encode())
    for dirpath, dirnames, filenames in os.walk(task.dir):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            file = Path(dirpath) / name
            h.update(file.relative_to(task.dir).as_posix().encode() + b"\0")
            h.update(file.read_bytes())
    return h.hexdigest()


@dataclass(frozen=True)
class ContextEstimate:
    task_id: str
    per_step: tuple[int, ...]
    final_tokens: int | None
    note: str | None


def _cache_file(task: Task, fingerprint: str) -> Path:
    return cache_dir() / f"{task.id}-{fingerprint[:20]}.json"


def load_cached(task: Task, fingerprint: str) -> ContextEstimate | None:
    try:
        data = json.loads(_cache_file(task, fingerprint).read_text(encoding="utf-8"))
        return ContextEstimate(task.id, tuple(data["per_step"]), data["final_tokens"], None)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store_cached(task: Task, fingerprint: str, estimate: ContextEstimate) -> None:
    if estimate.final_tokens is None:
        return
    try:
        file = _cache_file(task, fingerprint)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(
            json.dumps({"per_step": list(estimate.per_step),
                        "final_tokens": estimate.final_tokens}),
            encoding="utf-8",
        )
    except OSError:
        pass  # a cache that cannot be written only costs time


class EstimatorFactory:
    """One tokenizer for a whole suite, loaded on first use."""

    def __init__(self) -> None:
        self.model_path, self.note = default_tokenizer_path()
        self._tokenizer: Vocabulary | None = None

    def tokenizer(self) -> Vocabulary | None:
        if self._tokenizer is None and self.model_path is not None:
            try:
                self._tokenizer = Vocabulary(self.model_path)
            except Exception as exc:  # a broken GGUF: report, don't crash a listing
                self.note = f"cannot load tokenizer from {self.model_path}: {exc}"
                self.model_path = None
        return self._tokenizer

    def estimator(self) -> ContextEstimator:
        return ContextEstimator(self.tokenizer(), self.note)
