"""The Engine protocol: how the agent loop gets tokens, and what each generation reports.

An engine takes chat messages and returns a Generation with its own monotonic timestamps.
Assistant messages may carry the exact token ids the engine produced for them, so the next
prompt extends the KV cache instead of diverging inside a re-tokenised copy of that turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Message:
    role: str  # system | user | assistant
    content: str
    # exact ids the engine generated for this assistant turn (without the end-of-turn token)
    tokens: tuple[int, ...] | None = None


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

    def __init__(self, needed: int, limit: int) -> None:
        super().__init__(f"prompt needs {needed} tokens, context limit is {limit}")
        self.needed = needed
        self.limit = limit


class EngineError(Exception):
    """The backend failed while generating (not a user error)."""


class Engine(Protocol):
    n_ctx: int

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
        # optional: called with each kept token's text as it is sampled, for live displays
        # (the loop passes it only to an engine whose generate() declares it)
        on_token: Callable[[str], None] | None = None,
    ) -> Generation: ...
