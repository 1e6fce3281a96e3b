"""The step loop on its own, with a scripted engine and a stand-in toolbox: every way a task
ends gives its termination, step count and detail, and each step emits its live phases and
then its StepRecord, in that order."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from edgeagent.agent.loop import AgentLimits, LoopResult, run_agent
from edgeagent.engine.base import ContextOverflow, EngineError, Generation, Message
from edgeagent.events import Event, PhaseStarted, StepRecord, TaskStarted, TokenDelta
from edgeagent.sandbox.tools import TOOL_SPECS, ToolResult

LIST = json.dumps({"name": "list_dir", "arguments": {"path": "."}})
FAIL = json.dumps({"name": "run", "arguments": {"command": "pytest"}})
SUBMIT = json.dumps({"name": "submit", "arguments": {"summary": "done"}})


class Sink:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


class Box:
    """The Toolbox surface the loop uses: `run` always fails the same way."""

    specs = TOOL_SPECS

    def repo_files(self, named_in: str = "") -> list[str]:
        return ["calc.py"]

    def workspace_fault(self) -> str | None:
        return None

    def call(self, name: str, args: dict) -> ToolResult:
        if name == "submit":
            return ToolResult("submitted", None, False, 0.1, submitted=True)
        if name == "run":
            return ToolResult("1 failed", 1, False, 0.1)
        return ToolResult("calc.py", 0, False, 0.1)


class Engine:
    """Answers from its script (an exception is raised); a plain engine, no token stream."""

    n_ctx = 4096
    tool_family = None

    def __init__(self, script: list[str | Exception]) -> None:
        self.script = script

    def provenance(self) -> dict[str, Any]:
        return {}

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return text[: max_tokens * 4]

    def answer(self) -> Generation:
        item = self.script.pop(0) if self.script else "not json"
        if isinstance(item, Exception):
            raise item
        t = time.monotonic_ns()
        return Generation(item, (1, 2), "stop", 100, 90, 10, 3, t, t, t + 1, t + 2, (t + 1,))

    def generate(self, messages: list[Message], *, max_tokens: int, grammar: Any = None,
                 max_context_tokens: int | None = None, on_token=None) -> Generation:
        return self.answer()


class StreamingEngine(Engine):
    def generate(self, messages: list[Message], *, max_tokens: int, grammar: Any = None,
                 max_context_tokens: int | None = None,
                 on_token: Callable[[str], None] | None = None) -> Generation:
        gen = self.answer()
        if on_token is not None:
            on_token(gen.text[:1])
        return gen


def run(script: list[str | Exception], engine: type[Engine] = Engine,
        stop: Callable[[], bool | str] = lambda: False, **limits: Any,
        ) -> tuple[LoopResult, list[Event]]:
    sink = Sink()
    limits.setdefault("draft_first", False)  # the loop's own steps (draft: test_draft.py)
    result = run_agent(task_id="t", attempt=0, title="Fix calc", issue="calc.py is wrong",
                       engine=engine(script), toolbox=Box(), sink=sink,  # type: ignore[arg-type]
                       limits=AgentLimits(**limits), stop_requested=stop)
    return result, sink.events


@pytest.mark.parametrize(("script", "limits", "expected"), [
    ([LIST, SUBMIT], {}, LoopResult("submitted", 2, 102)),
    (["bad", LIST, "bad", "bad", "bad"], {}, LoopResult(
        "format_errors", 5, 102, "3 consecutive format errors")),
    ([FAIL] * 6, {"stuck_after": 3}, LoopResult(
        "stuck", 3, 102, "2 steps in a row repeated calls already made, with the same outcomes")),
    ([LIST] * 6, {"max_steps": 4, "stuck_after": 0}, LoopResult(
        "max_steps", 4, 102, "the step limit, 4 steps")),
    ([LIST, ContextOverflow(5000, 4096)], {}, LoopResult(
        "context_overflow", 1, 5000, "prompt needs 5000 tokens, context limit is 4096")),
    ([LIST, EngineError("boom")], {}, LoopResult("engine_error", 1, 102, "boom")),
    ([LIST], {"wall_s": -1.0}, LoopResult("wall_timeout", 0, 0, "over -1 s")),
])
def test_each_end_has_its_termination(
    script: list[str | Exception], limits: dict[str, Any], expected: LoopResult,
) -> None:
    result, _ = run(script, **limits)
    assert result == expected


def test_a_display_stops_or_skips_before_a_step() -> None:
    asked = iter(range(10))
    result, events = run([LIST] * 5, stop=lambda: next(asked) >= 2)
    assert result == LoopResult("interrupted", 2, 102)
    assert sum(isinstance(e, StepRecord) for e in events) == 2
    result, _ = run([LIST] * 5, stop=lambda: "skipped")
    assert result == LoopResult("skipped", 0, 0)


def test_events_of_a_step_in_order() -> None:
    _, events = run([LIST, SUBMIT], engine=StreamingEngine)
    kinds = [(type(e).__name__, getattr(e, "phase", None)) for e in events]
    step = [("PhaseStarted", "prefill"), ("PhaseStarted", "decode"), ("TokenDelta", None),
            ("PhaseStarted", "tool"), ("StepRecord", None)]
    assert kinds == [("TaskStarted", None), *step, *step]
    assert isinstance(events[0], TaskStarted) and "calc.py" in events[0].task_prompt
    records = [e for e in events if isinstance(e, StepRecord)]
    assert [(r.step, r.action_name, r.tool_exit_code) for r in records] == [
        (0, "list_dir", 0), (1, "submit", None)]
    assert all(isinstance(e, TokenDelta) and e.text == "{" for e in events[3::5])


def test_an_engine_that_streams_no_token_shows_prefill_then_tool() -> None:
    # every engine takes on_token; one that never calls it gets no decode marker
    _, events = run(["bad", SUBMIT])
    phases = [e.phase for e in events if isinstance(e, PhaseStarted)]
    assert phases == ["prefill", "tool", "prefill", "tool"]
    first = next(e for e in events if isinstance(e, StepRecord))
    assert first.format_error is not None and first.action_name is None and first.tool_error
