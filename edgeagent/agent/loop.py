"""The step loop: messages -> generate -> parse action -> act -> observe, until a limit.

It knows the Engine protocol, the Toolbox and an event sink, and nothing of SQLite, the
console, the TUI or sensors: each completed step is emitted as a StepRecord.

When the issue names one source file, step 0 is a whole-file draft (draft.py), kept only if
the visible tests pass; with `repair`, a draft that was not kept is followed by repair rounds
(repair.py: greedy repairs shown the tests' output, sampled drafts, or sampled repairs); the
loop's conversation starts without them, told in one line what they tried, and with
`after_draft_steps` it gets that many steps at most.

A task is an `_Episode`: one step queries the model, parses its action, acts and observes.
Whatever ends the task (a limit, the engine, the model submitting) raises `_TaskEnded` with
the LoopResult, so `run_agent` has one place that turns an end into its result.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import ContextOverflow, Engine, EngineError, Generation, Grammar, Message
from ..events import EventSink, PhaseStarted, TaskStarted, TokenDelta, step_record
from ..sandbox import Toolbox, ToolResult, ToolSpec
from . import prompt
from .actions import Action, FormatError, action_constraint, action_fields, parse_action
from .draft import DraftOutcome, DraftTarget, apply_draft, changes_a_line, draft_target
from .limits import AgentLimits
from .native import native_action, native_constraint, openai_tools
from .repair import (
    FEEDBACK_TOKENS,
    SAMPLED_DRAFT_TEMPERATURE,
    failing_first,
    repair_prompt,
    tried_note,
)
from .stuck import RepeatCounter, is_stuck, stuck_reason
from .whole_file import generate_whole_file


@dataclass(frozen=True)
class LoopResult:
    termination: str  # submitted | max_steps | context_overflow | wall_timeout | format_errors
    #                   | stuck | engine_error | sandbox_error | interrupted | skipped
    steps: int
    final_context_tokens: int
    detail: str | None = None


class _TaskEnded(Exception):
    """The task is over; `result` says how. Never escapes run_agent."""

    def __init__(self, termination: str, steps: int, context: int,
                 detail: str | None = None) -> None:
        super().__init__(termination)
        self.result = LoopResult(termination, steps, context, detail)


@dataclass(frozen=True)
class _Acted:
    """What one step's action did, as the model will read it."""

    result: ToolResult
    observation: str
    truncated: bool
    repeats: int | None  # the stuck rule's count; None: no tool call


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
    episode = _Episode(task_id, attempt, engine, toolbox, sink, limits, title, issue)
    try:
        first = 0
        if limits.draft_first and limits.max_steps > 1:  # the draft leaves the loop a step
            episode.check_limits(0, stop_requested())
            first = episode.draft()
            while episode.can_repair(first):
                episode.check_limits(first, stop_requested())
                first = episode.repair(first)
            episode.note_repairs()
        last = _last_step(limits, first)
        for step in range(first, last):
            episode.check_limits(step, stop_requested())
            episode.step(step)
    except _TaskEnded as end:
        return end.result
    if last < limits.max_steps:
        return LoopResult("step_budget", last, episode.context,
                          f"{limits.after_draft_steps} steps after a whole-file draft that "
                          "was not kept")
    return LoopResult("max_steps", limits.max_steps, episode.context,
                      f"the step limit, {limits.max_steps} steps")


def _last_step(limits: AgentLimits, first: int) -> int:
    """The step the loop stops before: the step limit, or, after a draft (and repairs) that
    was not kept (first > 0), the budget after it, whichever comes first."""
    if first == 0 or not limits.after_draft_steps:
        return limits.max_steps
    return min(limits.max_steps, first + limits.after_draft_steps)


class _Episode:
    """One task's conversation and the counters its limits read."""

    def __init__(self, task_id: str, attempt: int, engine: Engine, toolbox: Toolbox,
                 sink: EventSink, limits: AgentLimits, title: str, issue: str) -> None:
        """Emits TaskStarted with the prompts; the wall-clock limit counts from the end."""
        self.task_id, self.attempt = task_id, attempt
        self.title, self.issue = title, issue
        self.engine, self.toolbox, self.sink, self.limits = engine, toolbox, sink, limits
        self.specs = toolbox.specs  # search_code only when the run has retrieval
        self.native = limits.tool_format == "native"
        system = prompt.system_prompt(self.specs, native=self.native)
        user = prompt.task_prompt(title, issue, toolbox.repo_files(named_in=issue))
        sink.emit(TaskStarted(task_id, attempt, title, system, user))
        self.messages = [Message("system", system), Message("user", user)]
        self.reminder = prompt.issue_reminder(issue)
        self.tools = openai_tools(self.specs) if self.native else None
        self.grammar = _constraint(engine, limits, self.specs, self.tools)
        self.t0 = time.monotonic()
        self.context = 0  # the last generation's prompt plus its tokens
        self.format_errors = 0  # consecutive
        self.last_failed: Action | None = None
        self.repeat_counter = RepeatCounter()
        self.failed: tuple[DraftTarget, DraftOutcome] | None = None  # the last tested draft
        self.repairs = 0

    def check_limits(self, step: int, stop: bool | str) -> None:
        """Ends the task before `step` when a display asked, or past the wall-clock limit."""
        if stop:
            raise _TaskEnded(stop if isinstance(stop, str) else "interrupted", step,
                             self.context)
        wall_s = self.limits.wall_s
        if wall_s is not None and time.monotonic() - self.t0 > wall_s:
            raise _TaskEnded("wall_timeout", step, self.context, f"over {wall_s:g} s")

    def draft(self) -> int:
        """Step 0 as a whole-file draft when the issue names one source file: kept (the
        visible tests pass), it submits the task. Returns the loop's first step."""
        target = draft_target(self.toolbox, self.title, self.issue)
        if target is None:
            return 0
        outcome = self.whole_file_step(0, target, list(target.messages), target.text, "draft")
        if outcome is None:
            return 0  # the file does not fit the window: the loop reads it in parts
        self.failed = (target, outcome)
        return 1

    def can_repair(self, step: int) -> bool:
        """Another repair round fits: asked for, a draft that was not kept (one the tests ran
        on, for greedy repairs), a step left for the loop after it."""
        if (self.repairs >= self.limits.repair or self.failed is None
                or step >= self.limits.max_steps - 1):
            return False
        return self.limits.repair_strategy != "repair" or self.failed[1].tested is not None

    def repair(self, step: int) -> int:
        """Step `step` as a repair round (repair.py): the issue, the file as last drafted
        and the tests' output on it, failing lines first, trimmed (repair, mix); or the
        draft's own prompt again (sample, or mix before any draft was tested); sampled,
        seeded by the round's number, except greedy repairs."""
        assert self.failed is not None
        target, last = self.failed
        strategy = self.limits.repair_strategy
        self.repairs += 1
        shown = last.tested if strategy != "sample" else None
        if shown is not None:
            feedback = self.engine.truncate_to_tokens(failing_first(last.result.output),
                                                      FEEDBACK_TOKENS)
            messages = repair_prompt(target.path, shown, self.title, self.issue, feedback)
        else:
            messages = list(target.messages)
        sampled = None if strategy == "repair" else (SAMPLED_DRAFT_TEMPERATURE, self.repairs)
        content = shown if shown is not None and len(shown) > len(target.text) else target.text
        with self.sampling(step, sampled):
            outcome = self.whole_file_step(step, target, messages, content, "repair",
                                           {"strategy": strategy, "sampled": sampled})
        if outcome is None:  # no room for the file and the output: no more repairs
            self.repairs = self.limits.repair
            return step
        if sampled is None and (outcome.tested is None
                                or not changes_a_line(last.tested or target.text, outcome.tested)):
            # the same file again, or none: greedy decoding would answer the next repair,
            # asked the same, the same way (seen on core: the 1.5B copied its draft)
            self.repairs = self.limits.repair
        elif outcome.tested is not None:
            self.failed = (target, outcome)
        return step + 1

    @contextlib.contextmanager
    def sampling(self, step: int, sampled: tuple[float, int] | None) -> Iterator[None]:
        """(temperature, seed) for the generations inside the block; None: the engine's own
        (greedy). An engine that cannot sample per call, or will not (speculative decoding
        verifies greedily), ends the task."""
        if sampled is None:
            yield
            return
        override = getattr(self.engine, "sampling_override", None)
        if override is None:
            raise _TaskEnded("engine_error", step, self.context,
                             "sampled repair rounds need an engine that samples per call")
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(override(temperature=sampled[0], seed=sampled[1]))
            except ValueError as exc:
                raise _TaskEnded("engine_error", step, self.context, str(exc)) from exc
            yield

    def note_repairs(self) -> None:
        """After the last failed repair, the loop's conversation is told in one line what
        the whole-file drafts tried and what failed."""
        if not self.repairs or self.failed is None:
            return
        target, last = self.failed
        failure = last.result.output if last.tested is not None else None
        note = tried_note(target.path, self.repairs + 1, failure)
        self.messages[1] = Message("user", f"{self.messages[1].text}\n\n{note}")

    def whole_file_step(self, step: int, target: DraftTarget, messages: list[Message],
                        content: str, action: str,
                        how: dict[str, Any] | None = None) -> DraftOutcome | None:
        """One whole-file answer written and tested as step `step` (the draft or a repair);
        kept, it submits the task; None when the file does not fit the window."""
        wall_start = time.time()
        self.sink.emit(PhaseStarted(self.task_id, self.attempt, step, "prefill",
                                    time.monotonic_ns()))
        try:
            gen = generate_whole_file(
                self.engine, messages, content,
                max_context_tokens=self.limits.max_context_tokens,
                on_token=_live_tokens(self.sink, self.task_id, self.attempt, step))
        except ContextOverflow:
            return None
        except EngineError as exc:
            raise _TaskEnded("engine_error", step, self.context, str(exc)) from exc
        t_tool_start = time.monotonic_ns()
        self.sink.emit(PhaseStarted(self.task_id, self.attempt, step, "tool", t_tool_start))
        outcome = apply_draft(self.toolbox, target, gen.text)
        t_tool_end = time.monotonic_ns()
        self.sink.emit(step_record(
            gen, task_id=self.task_id, attempt=self.attempt, step=step, wall_start=wall_start,
            action_name=action,
            action_args={"path": target.path, "found_by": target.found_by, **(how or {})},
            format_error=None,
            result=outcome.result, observation=outcome.observation, truncated=False,
            observation_tokens=self.engine.count_tokens(outcome.observation),
            t_tool_start=t_tool_start, t_tool_end=t_tool_end,
            prompt=[{"role": m.role, "content": m.text} for m in messages]))
        if outcome.kept:
            raise _TaskEnded("submitted", step + 1, gen.context_tokens + len(gen.tokens),
                             f"the {action} of {target.path} passed the visible tests")
        fault = self.toolbox.workspace_fault()
        if fault is not None:
            raise _TaskEnded("sandbox_error", step + 1, self.context, fault)
        return outcome

    def step(self, step: int) -> None:
        """Query, parse, act, observe; emits the step's record, then ends the task if the
        step did (submitted, stuck, too many format errors)."""
        wall_start = time.time()
        gen = self.query(step)
        parsed = self.parse(gen)
        t_tool_start = time.monotonic_ns()
        self.sink.emit(PhaseStarted(self.task_id, self.attempt, step, "tool", t_tool_start))
        acted = self.act(parsed)
        t_tool_end = time.monotonic_ns()
        self.observe(gen, parsed, acted.observation)
        action_name, action_args, format_error = action_fields(parsed)
        self.sink.emit(step_record(
            gen, task_id=self.task_id, attempt=self.attempt, step=step,
            wall_start=wall_start, action_name=action_name, action_args=action_args,
            format_error=format_error, result=acted.result, observation=acted.observation,
            truncated=acted.truncated,
            observation_tokens=self.engine.count_tokens(acted.observation),
            t_tool_start=t_tool_start, t_tool_end=t_tool_end, repeats=acted.repeats,
        ))
        self.check_end(step, parsed, acted)

    def query(self, step: int) -> Generation:
        """The model's answer to the conversation so far; the engine's failures end the task."""
        # decode is marked at the first token the engine streams (_live_tokens)
        self.sink.emit(PhaseStarted(self.task_id, self.attempt, step, "prefill",
                                    time.monotonic_ns()))
        native_kw = {"tools": self.tools} if self.native else {}
        try:
            gen = self.engine.generate(
                self.messages,
                max_tokens=self.limits.max_new_tokens,
                grammar=self.grammar,
                max_context_tokens=self.limits.max_context_tokens,
                on_token=_live_tokens(self.sink, self.task_id, self.attempt, step),
                **native_kw,
            )
        except ContextOverflow as exc:
            raise _TaskEnded("context_overflow", step, exc.needed, str(exc)) from exc
        except EngineError as exc:
            raise _TaskEnded("engine_error", step, self.context, str(exc)) from exc
        self.context = gen.context_tokens + len(gen.tokens)
        return gen

    def parse(self, gen: Generation) -> Action | FormatError:
        parsed = (native_action(gen, self.specs) if self.native
                  else parse_action(gen.text, self.specs))
        if isinstance(parsed, FormatError) and gen.finish_reason == "length":
            # the parser's complaint (not a JSON object, unterminated string) hides the cause
            parsed = FormatError(
                f"the answer reached the {self.limits.max_new_tokens}-token budget before "
                f"its tool call was complete ({parsed.message}); write a shorter call")
        return parsed

    def act(self, parsed: Action | FormatError) -> _Acted:
        """The tool call run (or the format error answered) and framed as an observation."""
        if isinstance(parsed, FormatError):
            self.format_errors += 1
            result = ToolResult(output="", exit_code=None, error=True, wall_ms=0.0)
            observation = prompt.format_error_observation(parsed.message)
            self.repeat_counter.no_action()
            return _Acted(result, observation, truncated=False, repeats=None)
        self.format_errors = 0
        result = self.toolbox.call(parsed.name, parsed.arguments)
        text = self.engine.truncate_to_tokens(result.output, self.limits.observation_tokens)
        observation = prompt.observation(
            parsed.name, result, text, parsed == self.last_failed, self.reminder
        )
        self.last_failed = parsed if result.error else None
        failed = result.error or result.exit_code not in (None, 0)
        repeats = self.repeat_counter.step(parsed.name, parsed.arguments, result.output, failed)
        return _Acted(result, observation, text != result.output, repeats)

    def observe(self, gen: Generation, parsed: Action | FormatError, observation: str) -> None:
        """The answer and its observation appended to the conversation."""
        if self.native and isinstance(parsed, Action) and gen.tool_calls:
            # the call as the model wrote it (its ids spliced back), answered by its id
            call = gen.tool_calls[0]
            self.messages.append(Message("assistant", gen.text, gen.tokens, tool_calls=(call,)))
            self.messages.append(Message("tool", observation, tool_call_id=call.id))
        else:
            self.messages.append(Message("assistant", gen.text, gen.tokens))
            self.messages.append(Message("user", observation))

    def check_end(self, step: int, parsed: Action | FormatError, acted: _Acted) -> None:
        """Ends the task after `step` when it submitted, is stuck, or keeps failing to
        write a tool call."""
        if isinstance(parsed, Action) and acted.result.submitted:
            raise _TaskEnded("submitted", step + 1, self.context)
        if is_stuck(acted.repeats, self.limits.stuck_after):
            raise _TaskEnded("stuck", step + 1, self.context, stuck_reason(acted.repeats))
        if self.format_errors >= self.limits.max_format_errors:
            raise _TaskEnded("format_errors", step + 1, self.context,
                             f"{self.format_errors} consecutive format errors")
        fault = self.toolbox.workspace_fault()
        if fault is not None:  # no later step could write a fix: end it, recorded
            raise _TaskEnded("sandbox_error", step + 1, self.context, fault)


def _constraint(
    engine: Engine, limits: AgentLimits, specs: Sequence[ToolSpec],
    tools: list[dict[str, Any]] | None,
) -> Grammar | str | None:
    """The output constraint of every generation: a native call, a text action, or none."""
    if not limits.use_grammar:
        return None
    if tools is not None:
        return native_constraint(engine, tools)
    return action_constraint(specs)


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
