"""The step loop: messages -> generate -> parse action -> act -> observe, until a limit.

It knows the Engine protocol, the Toolbox and an event sink, and nothing of SQLite, the
console, the TUI or sensors: each completed step is emitted as a StepRecord.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine.base import ContextOverflow, Engine, EngineError, Generation, Message
from ..events import EventSink, StepRecord, TaskStarted
from ..sandbox.tools import TOOL_SPECS, Toolbox, ToolResult
from . import prompt
from .actions import Action, FormatError, action_grammar, parse_action


@dataclass(frozen=True)
class AgentLimits:
    max_steps: int = 20
    max_context_tokens: int | None = None  # None: the engine's context window
    wall_s: float | None = 600.0
    max_format_errors: int = 3  # consecutive
    max_new_tokens: int = 384
    observation_tokens: int = 1024
    use_grammar: bool = True


@dataclass(frozen=True)
class LoopResult:
    termination: str  # submitted | max_steps | context_overflow | wall_timeout | format_errors
    #                   | engine_error | interrupted
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
    stop_requested: Callable[[], bool] = lambda: False,
) -> LoopResult:
    system = prompt.system_prompt(TOOL_SPECS)
    user = prompt.task_prompt(title, issue, toolbox.repo_files())
    sink.emit(TaskStarted(task_id, attempt, title, system, user))
    messages = [Message("system", system), Message("user", user)]
    grammar = action_grammar(TOOL_SPECS) if limits.use_grammar else None
    t0 = time.monotonic()
    consecutive_format_errors = 0
    context = 0
    last_failed: Action | None = None
    for step in range(limits.max_steps):
        if stop_requested():
            return LoopResult("interrupted", step, context)
        if limits.wall_s is not None and time.monotonic() - t0 > limits.wall_s:
            return LoopResult("wall_timeout", step, context, f"over {limits.wall_s:g} s")
        wall_start = time.time()
        try:
            gen = engine.generate(
                messages,
                max_tokens=limits.max_new_tokens,
                grammar=grammar,
                max_context_tokens=limits.max_context_tokens,
            )
        except ContextOverflow as exc:
            return LoopResult("context_overflow", step, exc.needed, str(exc))
        except EngineError as exc:
            return LoopResult("engine_error", step, context, str(exc))
        context = gen.context_tokens + len(gen.tokens)
        parsed = parse_action(gen.text, TOOL_SPECS)
        t_tool_start = time.monotonic_ns()
        if isinstance(parsed, FormatError):
            consecutive_format_errors += 1
            result = _tool_result_for_format_error()
            observation = prompt.format_error_observation(parsed.message)
            truncated = False
        else:
            consecutive_format_errors = 0
            result = toolbox.call(parsed.name, parsed.arguments)
            text = engine.truncate_to_tokens(result.output, limits.observation_tokens)
            truncated = text != result.output
            observation = prompt.observation(parsed.name, result, text, parsed == last_failed)
            last_failed = parsed if result.error else None
        t_tool_end = time.monotonic_ns()
        messages.append(Message("assistant", gen.text, gen.tokens))
        messages.append(Message("user", observation))
        sink.emit(
            _step_record(
                task_id, attempt, step, wall_start, gen, parsed, result, observation,
                truncated, engine.count_tokens(observation), t_tool_start, t_tool_end,
            )
        )
        if isinstance(parsed, Action) and result.submitted:
            return LoopResult("submitted", step + 1, context)
        if consecutive_format_errors >= limits.max_format_errors:
            return LoopResult(
                "format_errors", step + 1, context,
                f"{consecutive_format_errors} consecutive format errors",
            )
    return LoopResult("max_steps", limits.max_steps, context)


def _step_record(
    task_id: str,
    attempt: int,
    step: int,
    wall_start: float,
    gen: Generation,
    parsed: Action | FormatError,
    result: ToolResult,
    observation: str,
    truncated: bool,
    observation_tokens: int,
    t_tool_start: int,
    t_tool_end: int,
) -> StepRecord:
    times = gen.token_times_ns
    per_token = tuple((b - a) / 1e6 for a, b in zip(times, times[1:], strict=False))
    is_action = isinstance(parsed, Action)
    return StepRecord(
        task_id=task_id,
        attempt=attempt,
        step=step,
        t_start_ns=gen.t_start_ns,
        t_first_token_ns=gen.t_first_token_ns,
        t_decode_end_ns=gen.t_end_ns,
        t_tool_start_ns=t_tool_start,
        t_tool_end_ns=t_tool_end,
        wall_start=wall_start,
        context_tokens=gen.context_tokens,
        reused_tokens=gen.reused_tokens,
        prefill_tokens=gen.prefill_tokens,
        decoded_tokens=gen.decoded_tokens,
        prefill_ms=gen.prefill_ms,
        ttft_ms=gen.ttft_ms,
        decode_ms=gen.decode_ms,
        tpot_ms=gen.tpot_ms,
        sample_ms=gen.sample_ms,
        kv_cache_bytes=gen.kv_cache_bytes,
        spec_drafted=gen.spec_drafted,
        spec_accepted=gen.spec_accepted,
        action_name=parsed.name if is_action else None,
        action_args=parsed.arguments if is_action else None,
        format_error=None if is_action else parsed.message,
        raw_output=gen.text,
        observation=observation,
        tool_exit_code=result.exit_code,
        tool_ms=(t_tool_end - t_tool_start) / 1e6,
        tool_error=result.error,
        observation_tokens=observation_tokens,
        observation_truncated=truncated,
        per_token_ms=per_token,
        **_endpoint_fields(gen),
    )


def _endpoint_fields(gen: Generation) -> dict[str, Any]:
    """The server's view, where the engine is an endpoint (edgeagent.engine.http)."""
    if "request_ms" not in gen.extra:
        return {}
    x = gen.extra
    return {
        "token_counts": x.get("token_counts"),
        "server_prompt_tokens": x.get("server_prompt_tokens"),
        "server_cached_tokens": x.get("server_cached_tokens"),
        "server_decoded_tokens": x.get("server_decoded_tokens"),
        "server_prefill_ms": gen.engine_prefill_ms,
        "server_decode_ms": gen.engine_decode_ms,
        "request_ms": x.get("request_ms"),
        "retries": x.get("retries"),
    }
