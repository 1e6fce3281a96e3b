"""The Engine protocol: how the agent loop gets tokens, and what each generation reports.

An engine takes chat messages and returns a Generation with its own monotonic timestamps.
Assistant messages may carry the exact token ids the engine produced for them, so the next
prompt extends the KV cache instead of diverging inside a re-tokenised copy of that turn.

Messages are OpenAI's native ones: an assistant turn may carry tool calls (and the reasoning
a model wrote before them), a `tool` message answers one call by its id. The model's own chat
template renders them, with the `tools` a generate() call is given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolCall:
    """One native tool call, as OpenAI's wire format has it: `arguments` is the JSON text."""

    id: str
    name: str
    arguments: str

    @property
    def args(self) -> Any:
        """The arguments parsed (a dict for a well-formed call)."""
        return json.loads(self.arguments)

    def wire_form(self) -> dict[str, Any]:
        """As an OpenAI request carries it (arguments a JSON string)."""
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}

    def template_form(self) -> dict[str, Any]:
        """As a chat template reads it: arguments parsed to a dict first, as MLPerf's ISL
        count and llama-server do (Hermes-style templates iterate or `tojson` them); text
        that is not a JSON object stays the string it was."""
        try:
            parsed = json.loads(self.arguments)
        except (json.JSONDecodeError, RecursionError):
            parsed = None
        arguments = parsed if isinstance(parsed, dict) else self.arguments
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": arguments}}


@dataclass(frozen=True)
class Message:
    role: str  # system | user | assistant | tool
    # None only for an assistant turn that is tool calls alone (MLPerf's rows so render)
    content: str | None
    # exact ids the engine generated for this assistant turn (without the end-of-turn token)
    tokens: tuple[int, ...] | None = None
    tool_calls: tuple[ToolCall, ...] | None = None  # an assistant turn's native calls
    tool_call_id: str | None = None  # a `tool` message: the call it answers
    reasoning_content: str | None = None  # an assistant turn's reasoning, kept as recorded

    @property
    def text(self) -> str:
        """The content, '' when there is none."""
        return self.content or ""


@dataclass(frozen=True)
class Grammar:
    """An output constraint as both kinds of backend take it: GBNF for llama.cpp (in process
    or llama-server), and the JSON schema it was written from, for servers that accept a
    schema instead. A bare GBNF string is also accepted where a Grammar is; it has no schema."""

    gbnf: str
    json_schema: dict[str, Any] | None = None


def gbnf_of(grammar: Grammar | str | None) -> str | None:
    return grammar.gbnf if isinstance(grammar, Grammar) else grammar


def json_schema_of(grammar: Grammar | str | None) -> dict[str, Any] | None:
    return grammar.json_schema if isinstance(grammar, Grammar) else None


@dataclass(frozen=True)
class Generation:
    text: str
    tokens: tuple[int, ...]  # generated ids, end-of-generation token excluded
    finish_reason: str  # stop | length
    # token accounting
    context_tokens: int  # prompt length
    reused_tokens: int  # prompt tokens already in the KV cache
    prefill_tokens: int  # prompt tokens evaluated now (= context - reused)
    decoded_tokens: int  # tokens sampled, the end-of-generation token included
    # monotonic ns edges
    t_start_ns: int  # call entered (render + tokenize start)
    t_prefill_start_ns: int  # prompt tokens ready, evaluation starts
    t_first_token_ns: int  # first token sampled
    t_end_ns: int  # last token sampled
    token_times_ns: tuple[int, ...] = ()  # sample time of every decoded token
    # engine-side counters where the backend has them (llama.cpp perf), for cross-checking
    engine_prefill_ms: float | None = None
    engine_decode_ms: float | None = None
    kv_cache_bytes: int = 0
    spec_drafted: int | None = None
    spec_accepted: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # this process's CPU time from the first token to the end (steadier than wall time when
    # other processes compete for the cores and llama.cpp runs one thread)
    decode_cpu_ms: float | None = None
    # native tool calling (generate() given `tools`): the calls read back from the output,
    # or None with the reason the output held no readable call
    tool_calls: tuple[ToolCall, ...] | None = None
    tool_call_error: str | None = None

    @property
    def render_ms(self) -> float:
        return (self.t_prefill_start_ns - self.t_start_ns) / 1e6

    @property
    def prefill_ms(self) -> float:
        return (self.t_first_token_ns - self.t_prefill_start_ns) / 1e6

    @property
    def ttft_ms(self) -> float:
        return (self.t_first_token_ns - self.t_start_ns) / 1e6

    @property
    def decode_ms(self) -> float:
        return (self.t_end_ns - self.t_first_token_ns) / 1e6

    @property
    def tpot_ms(self) -> float | None:
        # serving-benchmark convention: (e2e - TTFT) / (output tokens - 1)
        if self.decoded_tokens < 2:
            return None
        return self.decode_ms / (self.decoded_tokens - 1)

    @property
    def sample_ms(self) -> float | None:
        """Decode wall time the backend did not spend evaluating: sampling, grammar, harness."""
        if self.engine_decode_ms is None:
            return None
        return max(0.0, self.decode_ms - self.engine_decode_ms)


class ContextOverflow(Exception):
    """The prompt plus the generation budget does not fit the context window."""

    def __init__(self, needed: int, limit: int, detail: str | None = None) -> None:
        super().__init__(detail or f"prompt needs {needed} tokens, context limit is {limit}")
        self.needed = needed
        self.limit = limit


class EngineError(Exception):
    """The backend failed while generating (not a user error)."""


class TurnTimeout(EngineError):
    """The turn did not finish within its time limit (MLPerf's `turn_timeout_s`)."""

    def __init__(self, timeout_s: float, detail: str = "the turn did not finish") -> None:
        super().__init__(f"{detail} within the turn timeout ({timeout_s:g} s)")
        self.timeout_s = timeout_s


# OpenAI's string tool choices; generate()'s `tool_choice` takes one of them
TOOL_CHOICES = ("auto", "none", "required")


def check_tool_choice(tool_choice: str | None, tools: Sequence[Any] | None,
                      grammar: Grammar | str | None) -> None:
    """A tool choice goes with `tools` and no grammar: a grammar already decides whether a
    call comes (a caller's mistake, not a user's, so a ValueError)."""
    if tool_choice is None:
        return
    if tool_choice not in TOOL_CHOICES:
        raise ValueError(f"tool_choice {tool_choice!r}: give one of {', '.join(TOOL_CHOICES)}")
    if not tools:
        raise ValueError("tool_choice goes with tools: none were given")
    if grammar is not None:
        raise ValueError("tool_choice goes with tools alone: the grammar already constrains "
                         "the call")


class Engine(Protocol):
    n_ctx: int
    # the chat template's native tool-call family (engine.tool_format), None: no native tools
    tool_family: str | None

    def provenance(self) -> dict[str, Any]: ...

    def count_tokens(self, text: str) -> int: ...

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str: ...

    def generate(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        grammar: Grammar | str | None = None,
        max_context_tokens: int | None = None,
        # called with each kept token's (or streamed delta's) text as it is sampled, for live
        # displays; every engine takes it, one that cannot stream never calls it
        on_token: Callable[[str], None] | None = None,
        # OpenAI function schemas: rendered by the template, calls read back natively
        # (passed only in native tool format, to an engine with a tool_family)
        tools: Sequence[dict[str, Any]] | None = None,
        # OpenAI's tool choice, with `tools` and no grammar (check_tool_choice); None: the
        # engine's own way (the agent loop's). MLPerf's accuracy phase asks "auto"
        tool_choice: str | None = None,
    ) -> Generation: ...
