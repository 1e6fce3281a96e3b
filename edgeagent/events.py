"""The records that flow from the runner and agent loop to the store, console and TUI.

Every consumer subscribes to the same events through an EventSink, so headless and TUI runs
produce identical results. Timestamps are `time.monotonic_ns()` (for durations) plus
`time.time()` wall seconds (for humans), both taken by the producer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .engine import Generation


@dataclass(frozen=True)
class PhaseEnergy:
    """Energy over one phase interval; joules is None with a reason when no sensor covers it."""

    joules: float | None
    source: str | None = None
    scope: str | None = None
    null_reason: str | None = "no power source found"


@dataclass(frozen=True)
class PhaseLoad:
    """What else the host's CPUs did over one phase interval (meter/cpu_load.py):
    CPU-seconds taken by processes outside the run's own process tree, and stolen by the
    hypervisor, out of the CPU-seconds the host had (its CPUs x the phase's wall). All None
    with the reason when the host's counters could not be read."""

    other_s: float | None
    steal_s: float | None
    cpus_s: float | None
    null_reason: str | None = "not measured: the step was not metered"

    @property
    def share(self) -> float | None:
        """Other processes' and steal's share of the CPUs over the phase (0..1)."""
        if self.other_s is None or self.steal_s is None or not self.cpus_s:
            return None
        return max(0.0, self.other_s + self.steal_s) / self.cpus_s


@dataclass(frozen=True)
class StepRecord:
    task_id: str
    attempt: int
    step: int
    # monotonic ns edges of the phases
    t_start_ns: int
    t_first_token_ns: int
    t_decode_end_ns: int
    t_tool_start_ns: int
    t_tool_end_ns: int
    wall_start: float
    # tokens
    context_tokens: int
    reused_tokens: int
    prefill_tokens: int
    decoded_tokens: int
    # engine timings (ms)
    prefill_ms: float
    ttft_ms: float
    decode_ms: float
    tpot_ms: float | None
    sample_ms: float | None
    kv_cache_bytes: int
    spec_drafted: int | None
    spec_accepted: int | None
    # action
    action_name: str | None
    action_args: dict[str, Any] | None
    format_error: str | None
    raw_output: str
    observation: str
    # tool
    tool_exit_code: int | None
    tool_ms: float
    tool_error: bool
    observation_tokens: int
    observation_truncated: bool
    per_token_ms: tuple[float, ...] = ()
    # retrieval (split into embed / search / rerank once retrieval exists)
    retrieval_embed_ms: float | None = None
    retrieval_search_ms: float | None = None
    retrieval_rerank_ms: float | None = None
    # meter (filled by attribution)
    energy_prefill: PhaseEnergy = field(default_factory=lambda: PhaseEnergy(None))
    energy_decode: PhaseEnergy = field(default_factory=lambda: PhaseEnergy(None))
    energy_tool: PhaseEnergy = field(default_factory=lambda: PhaseEnergy(None))
    # harness time between the previous step's end (or the task start) and this step's start
    energy_other: PhaseEnergy = field(default_factory=lambda: PhaseEnergy(None))
    t_other_start_ns: int | None = None
    cpu_percent: float | None = None
    rss_bytes: int | None = None
    max_temp_c: float | None = None
    # retrieval (search_code): index open/build/update during the call, and the monotonic
    # edges of the whole call, a sub-interval of the tool phase; energy_retrieval is its
    # share of energy_tool (a breakdown, not added to the step's total)
    retrieval_index_ms: float | None = None
    retrieval_index_cached: bool | None = None  # None: the index was already open
    retrieval_files_reindexed: int | None = None
    retrieval_chunks: int | None = None
    t_retrieval_start_ns: int | None = None
    t_retrieval_end_ns: int | None = None
    energy_retrieval: PhaseEnergy = field(
        default_factory=lambda: PhaseEnergy(None, null_reason="no retrieval in this step")
    )
    # speculative decoding: target forward passes of the decode phase (None: spec off)
    spec_target_passes: int | None = None
    # endpoint engine: the server's own numbers beside the client view (None in process)
    token_counts: str | None = None  # where the counts came from (server, tokenizer, ...)
    server_prompt_tokens: int | None = None
    server_cached_tokens: int | None = None
    server_decoded_tokens: int | None = None
    server_prefill_ms: float | None = None
    server_decode_ms: float | None = None
    request_ms: float | None = None  # request sent -> stream end, client clock
    retries: int | None = None
    # the stuck rule (agent/stuck.py): consecutive steps, this one included, that made the
    # same tool call with the same outcome (1: not a repeat; None: no tool call)
    repeats: int | None = None
    # the messages of a step asked outside the task's conversation (the whole-file draft,
    # agent/draft.py), as OpenAI-style {"role", "content"} dicts; None: the conversation's
    prompt: list[dict[str, str]] | None = None
    # host interference (filled by attribution): other processes' and steal's CPU time over
    # each phase, and the mean CPU clock over the step
    load_prefill: PhaseLoad = field(default_factory=lambda: PhaseLoad(None, None, None))
    load_decode: PhaseLoad = field(default_factory=lambda: PhaseLoad(None, None, None))
    load_tool: PhaseLoad = field(default_factory=lambda: PhaseLoad(None, None, None))
    cpu_mhz: float | None = None
    # what the run's unit judged of this step, as a JSON object (a replay turn's MLPerf score
    # and actions): stored with the step, in the same commit; None where nothing is judged
    scored: str | None = None

    @property
    def step_ms(self) -> float:
        return (self.t_tool_end_ns - self.t_start_ns) / 1e6

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TaskRecord:
    task_id: str
    attempt: int
    # resolved | unresolved | error; replayed (replay), served (serve), correct | incorrect
    # (accuracy)
    outcome: str
    termination: str  # submitted | max_steps | context_overflow | wall_timeout | ...
    steps: int
    wall_ms: float
    context_tokens_final: int
    prefill_tokens: int
    decoded_tokens: int
    reused_tokens: int
    prefill_ms: float
    decode_ms: float
    tool_ms: float
    format_errors: int
    energy_j: float | None
    energy_null_reason: str | None
    grading_output: str
    energy_prefill_j: float | None = None
    energy_decode_j: float | None = None
    energy_tool_j: float | None = None
    energy_other_j: float | None = None
    average_w: float | None = None
    error: str | None = None
    # retrieval: search_code calls, index build/load/update time and energy (part of tool)
    retrieval_calls: int = 0
    retrieval_index_ms: float | None = None
    energy_retrieval_j: float | None = None
    # why the loop ended this way, where it says (stuck: the repeats; wall_timeout: the limit)
    termination_detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    run_dir: str
    suite: str
    task_ids: tuple[str, ...]
    provenance: dict[str, Any]


@dataclass(frozen=True)
class TaskStarted:
    task_id: str
    attempt: int
    title: str
    system_prompt: str
    task_prompt: str


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    status: str  # complete | interrupted | failed
    tasks: tuple[TaskRecord, ...]
    wall_ms: float
    energy_j: float | None = None
    energy_null_reason: str | None = None
    sample_hz: float | None = None  # the sampling rate achieved over the run
    failure_reason: str | None = None  # why a `failed` run failed
    peak_rss_bytes: int | None = None  # None: not readable here (not Linux)
    peak_rss_scope: str | None = None  # what the peak covers (since the model load, or not)
    kv_cache_bytes_max: int | None = None  # the KV cache's bytes at the largest context


@dataclass(frozen=True)
class SampleBatch:
    """Meter samples taken since the previous batch, for the store's samples table.

    Each sample: (t_ns, cpu_percent, rss_bytes, temp_c, cpu_mhz, ((source name, value), ...),
    gpu_mhz), value in watts for a power source and cumulative joules for a counter.
    """

    samples: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class PhaseStarted:
    """A live marker for displays: a step's phase began (not stored; the StepRecord that
    follows carries the exact edges). phase: prefill | decode | tool, or generate (prefill
    and decode together) for an engine that does not stream tokens."""

    task_id: str
    attempt: int
    step: int
    phase: str
    t_ns: int


@dataclass(frozen=True)
class TokenDelta:
    """A live marker for displays: the text of one token as it was sampled (not stored;
    the StepRecord's raw_output is the exact text)."""

    task_id: str
    attempt: int
    step: int
    text: str


@dataclass(frozen=True)
class StepAnswered:
    """A served request's step, stored as soon as its answer is decoded, while the agent's
    tool interval (its own time, ended by its next request) is still open: a crash before
    that request cannot take the step. Its tool interval is empty and its observation
    unknown; the StepRecord with the same (task, attempt, step) replaces it in the store.
    Displays and the trajectory wait for that StepRecord."""

    step: StepRecord


@dataclass(frozen=True)
class Scored:
    """A unit's judgement of a step it never generated (a replay turn dropped by a timeout
    or an engine error, or not issued after one): stored as a StepRecord's `scored` is, under
    the step number the turn would have had."""

    task_id: str
    attempt: int
    step: int
    scored: str  # a JSON object


# Sinks ignore the event types they do not know, so live markers cost them nothing.
Event = (
    RunStarted | TaskStarted | StepRecord | StepAnswered | TaskRecord | RunFinished
    | SampleBatch | PhaseStarted | TokenDelta | Scored
)


class EventSink(Protocol):
    def emit(self, event: Event) -> None: ...


class FanOut:
    """Sends each event to every subscriber, in order."""

    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = list(sinks)

    def emit(self, event: Event) -> None:
        for sink in self.sinks:
            sink.emit(event)


class ToolOutcome(Protocol):
    exit_code: int | None
    error: bool
    retrieval: Any  # the search tool's cost split (embed/search/rerank/index), or None


def step_record(
    gen: Generation,
    *,
    task_id: str,
    attempt: int,
    step: int,
    wall_start: float,
    action_name: str | None,
    action_args: dict[str, Any] | None,
    format_error: str | None,
    result: ToolOutcome,
    observation: str,
    truncated: bool,
    observation_tokens: int,
    t_tool_start: int,
    t_tool_end: int,
    repeats: int | None = None,
    prompt: list[dict[str, str]] | None = None,
    scored: str | None = None,
) -> StepRecord:
    """The StepRecord of one generation and what its action did, built the same way by the
    live loop and by replay."""
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
        action_name=action_name,
        action_args=action_args,
        format_error=format_error,
        raw_output=gen.text,
        observation=observation,
        tool_exit_code=result.exit_code,
        tool_ms=(t_tool_end - t_tool_start) / 1e6,
        tool_error=result.error,
        observation_tokens=observation_tokens,
        observation_truncated=truncated,
        per_token_ms=_gaps_ms(gen.token_times_ns),
        spec_target_passes=gen.extra.get("spec_target_passes"),
        repeats=repeats,
        prompt=prompt,
        scored=scored,
        **_retrieval_fields(result.retrieval),
        **endpoint_fields(gen),
    )


def _gaps_ms(times: tuple[int, ...]) -> tuple[float, ...]:
    """Milliseconds between consecutive token times."""
    return tuple((b - a) / 1e6 for a, b in zip(times, times[1:], strict=False))


def _retrieval_fields(rc: Any) -> dict[str, Any]:
    """The search tool's cost split (ToolOutcome.retrieval), all None for any other tool."""
    return {
        "retrieval_embed_ms": rc.embed_ms if rc else None,
        "retrieval_search_ms": rc.search_ms if rc else None,
        "retrieval_rerank_ms": rc.rerank_ms if rc else None,
        "retrieval_index_ms": rc.index_ms if rc else None,
        "retrieval_index_cached": rc.index_cached if rc else None,
        "retrieval_files_reindexed": rc.files_reindexed if rc else None,
        "retrieval_chunks": rc.chunks if rc else None,
        "t_retrieval_start_ns": rc.t_start_ns if rc else None,
        "t_retrieval_end_ns": rc.t_end_ns if rc else None,
    }


def endpoint_fields(gen: Generation) -> dict[str, Any]:
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
