"""Teacher-forced replay of one conversation: the history of every assistant turn is the
recorded one, the model generates the turn, and the *recorded* message and tool result follow.

Each generated turn is emitted as a StepRecord built exactly as the live loop builds it (the
model's parsed action, token accounting, phase timestamps); the tool phase is the recorded
`delay_seconds` slept when asked, the re-execution of the recorded calls, or nothing. A turn
whose prompt does not fit the context window is dropped with the reason, never truncated.

Rendering (our prompt format, through the model's own chat template): the system prompt, with
the tool list appended when it does not already name every tool; an assistant turn is its
`content`, else its tool calls as `{"name": ..., "arguments": {...}}` JSON objects (Qwen's
native tool-call body, our agent's action format); tool results and user rows are user
messages (several results are each headed by their call id). `turn_prompts` is the one place
that builds a turn's prompt: the replay generates from it and `replay --isl` counts it.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..agent.actions import action_constraint, action_fields, parse_action
from ..engine.base import ContextOverflow, Engine, EngineError, Message
from ..events import EventSink, TaskStarted, step_record
from ..sandbox.tools import ToolResult as SandboxResult
from .dataset import Conversation, Row, ToolCall
from .export import specs_from_openai
from .score import parse_generated_calls, score_turn, turn_executables


@dataclass(frozen=True)
class ReplaySettings:
    max_new_tokens: int = 1024
    inject_tool_delay: bool = False
    use_grammar: bool = True


@dataclass(frozen=True)
class TurnResult:
    conversation_id: str
    turn: int  # the dataset row's turn number
    step: int  # 0-based assistant turn index, the StepRecord's step
    status: str  # completed | dropped
    reason: str | None
    score: float
    reference_executables: tuple[str, ...]
    predicted_executables: tuple[str, ...] | None
    context_tokens: int | None = None
    reused_tokens: int | None = None
    prefill_tokens: int | None = None
    decoded_tokens: int | None = None
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    latency_ms: float | None = None  # request start to last token (TTFT + decode)
    tool_ms: float | None = None
    generated: str | None = None


@dataclass(frozen=True)
class ConversationResult:
    conversation_id: str
    termination: str  # completed | dropped_turns | interrupted
    turns: tuple[TurnResult, ...] = field(default_factory=tuple)


class ToolExecutor(Protocol):
    def execute(self, calls: Sequence[ToolCall]) -> tuple[str, int | None, bool]:
        """Run the recorded calls; returns (observation, exit code, error)."""


def render_system(system: str | None, tools: Sequence[dict[str, Any]]) -> str:
    text = system or ""
    names = [t["function"]["name"] for t in tools]
    if not tools or all(name in text for name in names):
        return text
    lines = []
    for tool in tools:
        fn = tool["function"]
        props = ", ".join((fn.get("parameters") or {}).get("properties", {}))
        lines.append(f"- {fn['name']}({props}): {fn.get('description', '')}".rstrip(": "))
    block = ("Tools:\n" + "\n".join(lines) + "\n\nAnswer every turn with exactly one tool call "
             'as a JSON object: {"name": "<tool>", "arguments": {<argument>: <value>}}')
    return f"{text}\n\n{block}" if text else block


def assistant_text(row: Row) -> str:
    calls = [json.dumps({"name": c.name, "arguments": c.args}, ensure_ascii=False)
             for c in row.tool_calls or ()]
    parts = ([row.content] if row.content else []) + calls
    return "\n".join(parts)


def tool_text(row: Row) -> str:
    results = row.tool_results or ()
    if len(results) == 1:
        return results[0].content
    return "\n\n".join(f"[{r.tool_call_id}]\n{r.content}" for r in results)


@dataclass(frozen=True)
class TurnPrompt:
    """One assistant turn to generate: its recorded row, the row after it (the tool results
    or the user message the model reads next, None at the end) and the messages rendered
    before it."""

    row: Row
    reply: Row | None
    messages: tuple[Message, ...]


def turn_prompts(conv: Conversation) -> Generator[TurnPrompt, str | None, None]:
    """Every assistant turn of `conv` with the messages the model reads before it: the one
    place a turn's prompt is built, for the replay and for `replay --isl` alike.

    Sending a text back (generator.send) replaces what the model reads after that turn's
    tool calls (re-executed tools); `next()` keeps the recorded results.
    """
    system = render_system(conv.system, conv.tools)
    messages = [Message("system", system), Message("user", conv.rows[0].content or "")]
    rows = conv.rows
    observed: str | None = None
    for i, row in enumerate(rows[1:], start=1):
        if row.role == "assistant":
            reply = rows[i + 1] if i + 1 < len(rows) else None
            observed = yield TurnPrompt(row, reply, tuple(messages))
            messages.append(Message("assistant", assistant_text(row)))
        elif row.role == "tool":
            messages.append(Message("user", observed if observed is not None
                                    else tool_text(row)))
        else:
            messages.append(Message("user", row.content or ""))


def replay_conversation(
    conv: Conversation,
    engine: Engine,
    sink: EventSink,
    settings: ReplaySettings,
    *,
    executor: ToolExecutor | None = None,
    stop_requested: Callable[[], bool] = lambda: False,
    on_turn: Callable[[TurnResult], None] = lambda t: None,
) -> ConversationResult:
    first = conv.rows[0]
    system = render_system(conv.system, conv.tools)
    sink.emit(TaskStarted(conv.id, 0, conv.id, system, first.content or ""))
    specs = specs_from_openai(conv.tools)
    grammar = action_constraint(specs) if settings.use_grammar and specs else None
    turns: list[TurnResult] = []
    prompts = turn_prompts(conv)
    reexecuted: str | None = None  # what the re-executed calls printed, read after the turn
    for step in itertools.count():
        try:
            prompt = prompts.send(reexecuted)
        except StopIteration:
            break
        if stop_requested():
            return ConversationResult(conv.id, "interrupted", tuple(turns))
        row, next_row = prompt.row, prompt.reply
        tool_row = next_row if next_row is not None and next_row.role == "tool" else None
        reference = tuple(turn_executables((c.name, c.args) for c in row.tool_calls or ()))
        # what the model reads next: the tool results, or a user message (format errors)
        observation = tool_text(tool_row) if tool_row else (next_row.content if next_row else None)
        wall_start = time.time()
        try:
            gen = engine.generate(list(prompt.messages), max_tokens=settings.max_new_tokens,
                                  grammar=grammar)
        except (ContextOverflow, EngineError) as exc:
            kind = "context overflow" if isinstance(exc, ContextOverflow) else "engine error"
            turn = TurnResult(conv.id, row.turn, step, "dropped", f"{kind}: {exc}", 0.0,
                              reference, None)
            gen = None
        # the tool phase runs for a dropped turn too: re-executed calls keep the sandbox in
        # the recorded state for the turns after it
        t_tool_start = time.monotonic_ns()
        exit_code, error = None, False
        reexecuted = None
        if executor is not None and row.tool_calls:
            observation, exit_code, error = executor.execute(row.tool_calls)
            reexecuted = observation or ""
        elif gen is not None and settings.inject_tool_delay and tool_row and tool_row.delay_seconds:
            time.sleep(tool_row.delay_seconds)
        t_tool_end = time.monotonic_ns()
        if gen is not None:
            predicted = tuple(turn_executables(parse_generated_calls(gen.text)))
            parsed = parse_action(gen.text, specs)
            tool_ms = (t_tool_end - t_tool_start) / 1e6
            result = SandboxResult(observation or "", exit_code, error, tool_ms)
            sink.emit(step_record(
                conv.id, 0, step, wall_start, gen, *action_fields(parsed), result,
                observation or "", False, engine.count_tokens(observation or ""),
                t_tool_start, t_tool_end,
            ))
            turn = TurnResult(
                conv.id, row.turn, step, "completed", None, score_turn(reference, predicted),
                reference, predicted, gen.context_tokens, gen.reused_tokens, gen.prefill_tokens,
                gen.decoded_tokens, gen.ttft_ms, gen.tpot_ms, (gen.t_end_ns - gen.t_start_ns) / 1e6,
                tool_ms, gen.text,
            )
        turns.append(turn)
        on_turn(turn)
    dropped = any(t.status == "dropped" for t in turns)
    return ConversationResult(conv.id, "dropped_turns" if dropped else "completed", tuple(turns))
