"""Teacher-forced replay of one conversation: the history of every assistant turn is the
recorded one, the model generates the turn, and the *recorded* message and tool result follow.

Each generated turn is emitted as a StepRecord built exactly as the live loop builds it (the
model's parsed action, token accounting, phase timestamps); the tool phase is the recorded
`delay_seconds` slept when asked, the re-execution of the recorded calls, or nothing. A turn
whose prompt does not fit the context window is dropped with the reason, never truncated.

Rendering, native (where the model's chat template has a tool-call family,
engine/tool_format.py): exactly as MLPerf's harness builds each turn's messages, so the
prompt is token for token the ISL MLPerf counts: the system row, the dataset's `tools`
rendered by the template, assistant rows with their `tool_calls` (arguments parsed to a
dict) and `reasoning_content`, one `tool` message per tool result; the model's calls are
constrained to the family's syntax and read back natively.

Rendering, text (the fallback for a template without tool support): the system prompt, with
the tool list appended when it does not already name every tool; an assistant turn is its
`content`, else its tool calls as `{"name": ..., "arguments": {...}}` JSON objects (our
agent's action format); tool results and user rows are user messages (several results are
each headed by their call id).

`turn_prompts` is the one place that builds a turn's prompt: the replay generates from it and
`replay --isl` counts it.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..agent import (
    LimitsConfig,
    action_constraint,
    action_fields,
    native_action,
    parse_action,
)
from ..engine import (
    ContextOverflow,
    Engine,
    EngineError,
    Grammar,
    Message,
    TurnTimeout,
    tool_call_grammar,
)
from ..events import EventSink, Scored, TaskStarted, step_record
from ..rundir import judgement
from ..sandbox import ToolResult as SandboxResult
from ..sandbox import ToolSpec
from .dataset import Conversation, Row, ToolCall
from .export import specs_from_openai
from .preset import MLPERF
from .score import (
    intent_codes,
    is_workflow,
    mlperf_actions,
    model_intent,
    own_actions,
    parse_generated_calls,
    score_intent,
    score_turn,
)

# a dropped turn's reason starts with this when the turn ran past the turn timeout
TIMEOUT = "turn timeout"


@dataclass(frozen=True)
class ReplaySettings:
    """How each recorded turn is regenerated: MLPerf's budget unless the run says otherwise,
    and the agent section's grammar and tool-call format."""

    max_new_tokens: int = MLPERF.max_new_tokens
    inject_tool_delay: bool = False
    use_grammar: bool = LimitsConfig.grammar
    # native | text | auto (native where the engine's template has a tool-call family)
    tool_format: str = LimitsConfig.tool_format


@dataclass(frozen=True)
class TurnResult:
    conversation_id: str
    turn: int  # the dataset row's turn number
    step: int  # 0-based assistant turn index, the StepRecord's step
    status: str  # completed | dropped
    reason: str | None
    score: float | None  # MLPerf's inline score; None: no ground truth, excluded from the mean
    # coding: MLPerf's actions of the recorded and generated turn; workflow: the recorded
    # intent codes and the model's intent
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
    domain: str = "coding"  # coding | workflow (a `sim_N` conversation), as MLPerf splits them
    # our own rule for our own JSON tools (score.own_actions), apart from MLPerf's score;
    # None unless the recorded turn calls a tool other than `bash`
    own_score: float | None = None


@dataclass(frozen=True)
class _Reference:
    """What a recorded assistant turn is scored against (score.py)."""
    workflow: bool
    truth: tuple[str, ...]  # coding: MLPerf's actions; workflow: the intent codes, sorted
    own: tuple[str, ...] | None  # our rule's actions; None when every call is `bash`

    @classmethod
    def of(cls, conv_id: str, row: Row) -> _Reference:
        calls = [(c.name, c.args) for c in row.tool_calls or ()]
        if is_workflow(conv_id):
            return cls(True, tuple(sorted(intent_codes(dict(row.extra).get("intent_codes")))),
                       None)
        own = tuple(own_actions(calls)) if any(n != "bash" for n, _ in calls) else None
        return cls(False, tuple(mlperf_actions(calls)), own)

    def score(self, predicted: tuple[str, ...] | None) -> float | None:
        """MLPerf's score of a generated turn (None: the turn's output is missing)."""
        if self.workflow:
            return score_intent(set(self.truth), predicted[0] if predicted else None,
                                missing=predicted is None)
        return score_turn(self.truth, predicted)

    def generated(self, calls: list[tuple[str, dict[str, Any]]],
                  text: str) -> tuple[tuple[str, ...], float | None]:
        """MLPerf's view of a generated turn, and our own score of it."""
        if self.workflow:
            # a thinking model's text: its reasoning, then `</think>`, then the content
            reasoning, sep, content = text.rpartition("</think>")
            intent = model_intent(reasoning if sep else None, content)
            return ((intent,) if intent else ()), None
        own = score_turn(self.own, own_actions(calls)) if self.own is not None else None
        return tuple(mlperf_actions(calls)), own


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


def native_messages(row: Row) -> list[Message]:
    """A dataset row as MLPerf's harness turns it into OpenAI messages: an assistant row
    keeps its tool calls and reasoning (content None when it is calls alone), a tool row is
    one `tool` message per result."""
    if row.role == "tool":
        return [Message("tool", r.content, tool_call_id=r.tool_call_id)
                for r in row.tool_results or ()]
    if row.role == "assistant":
        return [Message("assistant", row.content, tool_calls=row.tool_calls,
                        reasoning_content=row.reasoning_content)]
    return [Message(row.role, row.content or "")]


def text_messages(row: Row) -> list[Message]:
    """A dataset row in our text protocol (the fallback rendering)."""
    if row.role == "assistant":
        return [Message("assistant", assistant_text(row))]
    return [Message("user", row.content if row.role == "user" else tool_text(row))]


def conversation_start(conv: Conversation, native: bool) -> list[Message]:
    """The system and first user messages (MLPerf adds a system message only when the
    conversation has a system prompt)."""
    first = conv.rows[0]
    if native:
        head = [Message("system", conv.system)] if conv.system else []
        return head + native_messages(first)
    return [Message("system", render_system(conv.system, conv.tools)),
            Message("user", first.content or "")]


@dataclass(frozen=True)
class TurnPrompt:
    """One assistant turn to generate: its recorded row, the row after it (the tool results
    or the user message the model reads next, None at the end) and the messages rendered
    before it."""

    row: Row
    reply: Row | None
    messages: tuple[Message, ...]


def uses_native(tool_format: str, engine: Any) -> bool:
    """Whether a replay renders natively: asked for, or `auto` and the engine's (or the
    vocabulary's) template has a tool-call family."""
    if tool_format == "auto":
        return getattr(engine, "tool_family", None) is not None
    return tool_format == "native"


def turn_prompts(conv: Conversation, native: bool) -> Generator[TurnPrompt, str | None, None]:
    """Every assistant turn of `conv` with the messages the model reads before it: the one
    place a turn's prompt is built, for the replay and for `replay --isl` alike.

    Sending a text back (generator.send) replaces what the model reads after that turn's
    tool calls (re-executed tools); `next()` keeps the recorded results.
    """
    to_messages = native_messages if native else text_messages
    messages = conversation_start(conv, native)
    rows = conv.rows
    observed: str | None = None
    previous: Row | None = None
    for i, row in enumerate(rows[1:], start=1):
        if row.role == "assistant":
            reply = rows[i + 1] if i + 1 < len(rows) else None
            observed = yield TurnPrompt(row, reply, tuple(messages))
            messages += to_messages(row)
            previous = row
        elif row.role == "tool" and observed is not None:
            calls = previous.tool_calls if previous is not None else None
            if native and calls:  # the re-executed calls' output, answering the first call
                messages.append(Message("tool", observed, tool_call_id=calls[0].id))
            else:
                messages.append(Message("user", observed))
        else:
            messages += to_messages(row)


@dataclass(frozen=True)
class _Constraints:
    """What one conversation's turns are generated with: the tool specs the actions are read
    against, the `tools` sent natively (None: text rendering), the grammar."""

    specs: tuple[ToolSpec, ...]
    tools: list[dict[str, Any]] | None
    grammar: Grammar | None

    @classmethod
    def of(cls, conv: Conversation, engine: Engine, settings: ReplaySettings,
           native: bool) -> _Constraints:
        family = getattr(engine, "tool_family", None)
        specs = specs_from_openai(conv.tools)
        grammar = None
        if settings.use_grammar and specs:
            if not native:
                grammar = action_constraint(specs)
            elif family is not None:
                # one call per turn, as llama-server's default (parallel_tool_calls false) on
                # MLPerf's reference: allowed more, the 0.5B model chained calls to the budget
                grammar = tool_call_grammar(family, conv.tools,
                                            single_tokens=getattr(engine, "tool_markers",
                                                                  frozenset()))
        tools = list(conv.tools) if native and conv.tools else None
        return cls(specs, tools, grammar)

    def generate_kw(self) -> dict[str, Any]:
        return {"tools": self.tools} if self.tools else {}


@dataclass(frozen=True)
class _ToolPhase:
    """A turn's tool phase: what the model reads next, the re-executed calls' exit code and
    error, their output to send back to turn_prompts (None: the recorded results), the
    phase's clock."""

    observation: str | None
    exit_code: int | None
    error: bool
    reexecuted: str | None
    t_start_ns: int
    t_end_ns: int

    @property
    def ms(self) -> float:
        return (self.t_end_ns - self.t_start_ns) / 1e6


def replay_conversation(
    conv: Conversation,
    engine: Engine,
    sink: EventSink,
    settings: ReplaySettings,
    *,
    executor: ToolExecutor | None = None,
    stop_requested: Callable[[], bool] = lambda: False,
    attempt: int = 0,
) -> ConversationResult:
    """`attempt`: 0, or the next try of a conversation a resumed replay runs again."""
    first = conv.rows[0]
    native = uses_native(settings.tool_format, engine)
    head = conversation_start(conv, native)
    system = head[0].text if head and head[0].role == "system" else ""
    sink.emit(TaskStarted(conv.id, attempt, conv.id, system, first.content or ""))
    constraints = _Constraints.of(conv, engine, settings, native)
    turns: list[TurnResult] = []
    prompts = turn_prompts(conv, native)
    reexecuted: str | None = None  # what the re-executed calls printed, read after the turn
    timed_out: TurnResult | None = None
    for step in itertools.count():
        try:
            prompt = prompts.send(reexecuted)
        except StopIteration:
            break
        if stop_requested():
            return ConversationResult(conv.id, "interrupted", tuple(turns))
        if timed_out is not None:
            # MLPerf aborts a conversation at a turn timeout: the rest are failed, not issued
            turn = _dropped(conv.id, step, prompt.row,
                            f"not issued: turn {timed_out.turn} timed out")
        else:
            turn, reexecuted = _replay_turn(conv.id, attempt, step, prompt, engine, sink,
                                            settings, constraints, executor)
            timed_out = turn if turn.reason and turn.reason.startswith(TIMEOUT) else None
        if turn.status == "dropped":  # no step: its judgement is stored alone
            sink.emit(Scored(conv.id, attempt, turn.step, judgement(dataclasses.asdict(turn))))
        turns.append(turn)
    dropped = any(t.status == "dropped" for t in turns)
    return ConversationResult(conv.id, "dropped_turns" if dropped else "completed", tuple(turns))


def _replay_turn(
    conv_id: str, attempt: int, step: int, prompt: TurnPrompt, engine: Engine, sink: EventSink,
    settings: ReplaySettings, constraints: _Constraints, executor: ToolExecutor | None,
) -> tuple[TurnResult, str | None]:
    """One assistant turn generated, its tool phase run and, when generated, its StepRecord
    emitted; returns the turn and what re-executed calls printed (None: not re-executed)."""
    row, next_row = prompt.row, prompt.reply
    tool_row = next_row if next_row is not None and next_row.role == "tool" else None
    ref = _Reference.of(conv_id, row)
    domain = "workflow" if ref.workflow else "coding"
    # what the model reads next: the tool results, or a user message (format errors)
    observation = tool_text(tool_row) if tool_row else (next_row.content if next_row else None)
    wall_start = time.time()
    try:
        gen = engine.generate(list(prompt.messages), max_tokens=settings.max_new_tokens,
                              grammar=constraints.grammar, **constraints.generate_kw())
    except (ContextOverflow, EngineError) as exc:
        kind = ("context overflow" if isinstance(exc, ContextOverflow)
                else TIMEOUT if isinstance(exc, TurnTimeout) else "engine error")
        dropped = _dropped(conv_id, step, row, f"{kind}: {exc}")
        # the tool phase runs for a dropped turn too: re-executed calls keep the sandbox in
        # the recorded state for the turns after it
        return dropped, _tool_phase(row, tool_row, observation, executor, None).reexecuted
    phase = _tool_phase(row, tool_row, observation, executor, settings)
    if constraints.tools:
        calls = [(c.name, c.args) for c in gen.tool_calls or ()]
        parsed = native_action(gen, constraints.specs)
    else:
        calls = parse_generated_calls(gen.text)
        parsed = parse_action(gen.text, constraints.specs)
    predicted, own_score = ref.generated(calls, gen.text)
    seen = phase.observation or ""
    result = SandboxResult(seen, phase.exit_code, phase.error, phase.ms)
    action_name, action_args, format_error = action_fields(parsed)
    turn = TurnResult(
        conv_id, row.turn, step, "completed", None, ref.score(predicted),
        ref.truth, predicted, gen.context_tokens, gen.reused_tokens, gen.prefill_tokens,
        gen.decoded_tokens, gen.ttft_ms, gen.tpot_ms, (gen.t_end_ns - gen.t_start_ns) / 1e6,
        phase.ms, gen.text, domain, own_score,
    )
    sink.emit(step_record(
        gen, task_id=conv_id, attempt=attempt, step=step, wall_start=wall_start,
        action_name=action_name, action_args=action_args, format_error=format_error,
        result=result, observation=seen, truncated=False,
        observation_tokens=engine.count_tokens(seen), t_tool_start=phase.t_start_ns,
        t_tool_end=phase.t_end_ns, scored=judgement(dataclasses.asdict(turn)),
    ))
    return turn, phase.reexecuted


def _dropped(conv_id: str, step: int, row: Row, reason: str) -> TurnResult:
    """A turn without output: scored as MLPerf scores a failed turn (0 where scorable)."""
    ref = _Reference.of(conv_id, row)
    return TurnResult(conv_id, row.turn, step, "dropped", reason, ref.score(None), ref.truth,
                      None, domain="workflow" if ref.workflow else "coding",
                      own_score=score_turn(ref.own, None) if ref.own else None)


def _tool_phase(row: Row, tool_row: Row | None, observation: str | None,
                executor: ToolExecutor | None,
                delay_settings: ReplaySettings | None) -> _ToolPhase:
    """The recorded calls re-executed, or their recorded delay slept when asked
    (`delay_settings`: None for a dropped turn, which sleeps no delay), or nothing."""
    t_start = time.monotonic_ns()
    exit_code, error, reexecuted = None, False, None
    if executor is not None and row.tool_calls:
        observation, exit_code, error = executor.execute(row.tool_calls)
        reexecuted = observation or ""
    elif (delay_settings is not None and delay_settings.inject_tool_delay and tool_row
          and tool_row.delay_seconds):
        time.sleep(tool_row.delay_seconds)
    return _ToolPhase(observation, exit_code, error, reexecuted, t_start, time.monotonic_ns())
