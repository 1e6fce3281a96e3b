"""The step loop: messages -> generate -> parse action -> act -> observe, until a limit.

It knows the Engine protocol, the Toolbox and an event sink, and nothing of SQLite, the
console, the TUI or sensors: each completed step is emitted as a StepRecord.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.base import ContextOverflow, Engine, EngineError, Message
from ..events import EventSink, PhaseStarted, TaskStarted, TokenDelta, step_record
from ..sandbox.tools import Toolbox, ToolResult
from . import prompt
from .actions import Action, FormatError, action_constraint, action_fields, parse_action
from .native import native_action, native_constraint, openai_tools
from .stuck import DEFAULT_STUCK_AFTER, RepeatCounter, is_stuck, stuck_reason


@dataclass(frozen=True)
class AgentLimits:
    max_steps: int = 20
    max_context_tokens: int | None = None  # None: the engine's context window
    wall_s: float | None = 600.0
    max_format_errors: int = 3  # consecutive
    max_new_tokens: int = 384
    observation_tokens: int = 1024
    use_grammar: bool = True
    # native: the template renders the tools, calls in its own syntax, tool messages;
    # text: our JSON protocol (agent/native.py resolves which for a run)
    tool_format: str = "text"
    stuck_after: int = DEFAULT_STUCK_AFTER  # identical steps that end a task; 0: never


@dataclass(frozen=True)
class LoopResult:
    termination: str  # submitted | max_steps | context_overflow | wall_timeout | format_errors
    #                   | stuck | engine_error | interrupted | skipped
    steps: int
    final_context_tokens: int
    detail: str | None = None


def _tool_result_for_format_error() -> ToolResult:
    return ToolResult(output="", exit_code=None, error=True, wall_ms=0.0)


def run_agent(
    *,
    task_id: str,
    attempt: int,
    title: str,
    issue: str,
    engine: Engine,
    toolbox: Toolbox,
    sink: EventSink,
    limits: AgentLimits,
    stop_requested: Callable[[], bool | str] = lambda: False,
) -> LoopResult:
    """`stop_requested` is asked before every step: True stops the task as interrupted; a
    string stops it with that termination (a display's "skip" answers "skipped")."""
    specs = toolbox.specs  # search_code only when the run has retrieval
    native = limits.tool_format == "native"
    system = prompt.system_prompt(specs, native=native)
    user = prompt.task_prompt(title, issue, toolbox.repo_files(named_in=issue))
    sink.emit(TaskStarted(task_id, attempt, title, system, user))
    messages = [Message("system", system), Message("user", user)]
    reminder = prompt.issue_reminder(issue)
    tools = openai_tools(specs) if native else None
    if not limits.use_grammar:
        grammar = None
    elif native:
        assert tools is not None
        grammar = native_constraint(engine, tools)
    else:
        grammar = action_constraint(specs)
    native_kw = {"tools": tools} if native else {}
    t0 = time.monotonic()
    streams = _accepts_on_token(engine)
    consecutive_format_errors = 0
    context = 0
    last_failed: Action | None = None
    repeat_counter = RepeatCounter()
    repeats: int | None = None
    for step in range(limits.max_steps):
        stop = stop_requested()
        if stop:
            return LoopResult(stop if isinstance(stop, str) else "interrupted", step, context)
        if limits.wall_s is not None and time.monotonic() - t0 > limits.wall_s:
            return LoopResult("wall_timeout", step, context, f"over {limits.wall_s:g} s")
        wall_start = time.time()
        # an engine that cannot stream tokens shows one "generate" phase instead
        live = {"on_token": _live_tokens(sink, task_id, attempt, step)} if streams else {}
        phase = "prefill" if streams else "generate"
        sink.emit(PhaseStarted(task_id, attempt, step, phase, time.monotonic_ns()))
        try:
            gen = engine.generate(
                messages,
                max_tokens=limits.max_new_tokens,
                grammar=grammar,
                max_context_tokens=limits.max_context_tokens,
                **live,
                **native_kw,
            )
        except ContextOverflow as exc:
            return LoopResult("context_overflow", step, exc.needed, str(exc))
        except EngineError as exc:
            return LoopResult("engine_error", step, context, str(exc))
        context = gen.context_tokens + len(gen.tokens)
        parsed = native_action(gen, specs) if native else parse_action(gen.text, specs)
        if isinstance(parsed, FormatError) and gen.finish_reason == "length":
            # the parser's complaint (not a JSON object, unterminated string) hides the cause
            parsed = FormatError(
                f"the answer reached the {limits.max_new_tokens}-token budget before its tool "
                f"call was complete ({parsed.message}); write a shorter call")
        t_tool_start = time.monotonic_ns()
        sink.emit(PhaseStarted(task_id, attempt, step, "tool", t_tool_start))
        if isinstance(parsed, FormatError):
            consecutive_format_errors += 1
            result = _tool_result_for_format_error()
            observation = prompt.format_error_observation(parsed.message)
            truncated = False
            repeat_counter.no_action()
            repeats = None
        else:
            consecutive_format_errors = 0
            result = toolbox.call(parsed.name, parsed.arguments)
            text = engine.truncate_to_tokens(result.output, limits.observation_tokens)
            truncated = text != result.output
            observation = prompt.observation(
                parsed.name, result, text, parsed == last_failed, reminder
            )
            last_failed = parsed if result.error else None
            failed = result.error or result.exit_code not in (None, 0)
            repeats = repeat_counter.step(parsed.name, parsed.arguments, result.output, failed)
        t_tool_end = time.monotonic_ns()
        if native and isinstance(parsed, Action) and gen.tool_calls:
            # the call as the model wrote it (its ids spliced back), answered by its id
            call = gen.tool_calls[0]
            messages.append(Message("assistant", gen.text, gen.tokens, tool_calls=(call,)))
            messages.append(Message("tool", observation, tool_call_id=call.id))
        else:
            messages.append(Message("assistant", gen.text, gen.tokens))
            messages.append(Message("user", observation))
        sink.emit(
            step_record(
                task_id, attempt, step, wall_start, gen, *action_fields(parsed), result,
                observation, truncated, engine.count_tokens(observation), t_tool_start,
                t_tool_end, repeats,
            )
        )
        if isinstance(parsed, Action) and result.submitted:
            return LoopResult("submitted", step + 1, context)
        if is_stuck(repeats, limits.stuck_after):
            return LoopResult("stuck", step + 1, context,
                              stuck_reason(repeats))
        if consecutive_format_errors >= limits.max_format_errors:
            return LoopResult(
                "format_errors", step + 1, context,
                f"{consecutive_format_errors} consecutive format errors",
            )
    return LoopResult("max_steps", limits.max_steps, context,
                      f"the step limit, {limits.max_steps} steps")


def _accepts_on_token(engine: Engine) -> bool:
    """Whether the engine's generate() takes the optional `on_token` listener."""
    try:
        params = inspect.signature(engine.generate).parameters
    except (TypeError, ValueError):
        return False
    return "on_token" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _live_tokens(
    sink: EventSink, task_id: str, attempt: int, step: int
) -> Callable[[str], None]:
    """Live markers for displays: decode starts at the first token; each token's text."""
    first = True

    def on_token(text: str) -> None:
        nonlocal first
        if first:
            first = False
            sink.emit(PhaseStarted(task_id, attempt, step, "decode", time.monotonic_ns()))
        sink.emit(TokenDelta(task_id, attempt, step, text))

    return on_token
