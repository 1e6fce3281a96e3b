"""The `single-shot` harness: no agent loop at all. For a task whose issue names exactly one
source file of its repository, the model gets the issue and that whole file and answers with
the corrected file, which is written back before grading. Other tasks are skipped, with the
reason. One generation, recorded as one step like any live step (its tool phase is the write).
The prompt and the reading of the answer are agent/whole_file.py's, shared with draft-first.

The baseline a loop must beat: on one-line bugs a small model often fixes more when simply
shown the file than inside a loop that must find, read and edit it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..agent import (
    LoopResult,
    corrected_file,
    file_to_fix,
    generate_whole_file,
    source_text,
    whole_file_prompt,
)
from ..engine import ContextOverflow, Engine, EngineError
from ..events import EventSink, TaskStarted, step_record
from ..sandbox import Workspace


@dataclass(frozen=True)
class _Written:
    exit_code: int | None
    error: bool
    retrieval: None = None


def run_single_shot(
    *, task_id: str, attempt: int, title: str, issue: str, engine: Engine, ws: Workspace,
    sink: EventSink, stop_requested: Callable[[], bool | str] = lambda: False,
) -> LoopResult:
    rel, why = file_to_fix(ws.root, issue)
    if rel is None:
        return LoopResult("skipped", 0, 0,
                          f"single-shot needs an issue that names one source file: {why}")
    path = ws.resolve(rel)
    content = source_text(path.read_bytes())
    if content is None:
        return LoopResult("skipped", 0, 0, f"single-shot needs a UTF-8 text file; {rel} is not")
    messages = whole_file_prompt(rel, content, title, issue)
    sink.emit(TaskStarted(task_id, attempt, title, messages[0].text, messages[1].text))
    if stop_requested():
        return LoopResult("interrupted", 0, 0)
    wall_start = time.time()
    try:
        gen = generate_whole_file(engine, messages, content)
    except ContextOverflow as exc:
        return LoopResult("context_overflow", 0, exc.needed, str(exc))
    except EngineError as exc:
        return LoopResult("engine_error", 0, 0, str(exc))
    t_tool = time.monotonic_ns()
    fixed = corrected_file(gen.text)
    if fixed is not None:
        path.write_text(fixed)
    written = _Written(exit_code=None, error=fixed is None)
    observation = f"wrote {rel}" if fixed is not None else "no code block in the answer"
    sink.emit(step_record(
        gen, task_id=task_id, attempt=attempt, step=0, wall_start=wall_start,
        action_name="write_file", action_args={"path": rel},
        format_error=None if fixed is not None else observation, result=written,
        observation=observation, truncated=False, observation_tokens=0,
        t_tool_start=t_tool, t_tool_end=time.monotonic_ns()))
    context = gen.context_tokens + len(gen.tokens)
    if fixed is None:
        return LoopResult("format_errors", 1, context, observation)
    return LoopResult("submitted", 1, context, f"the corrected {rel} written")

