"""The `single-shot` harness: no agent loop at all. For a task whose issue names exactly one
source file of its repository, the model gets the issue and that whole file and answers with
the corrected file, which is written back before grading. Other tasks are skipped, with the
reason. One generation, recorded as one step like any live step (its tool phase is the write).

The baseline a loop must beat: on one-line bugs a small model often fixes more when simply
shown the file than inside a loop that must find, read and edit it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..agent.loop import LoopResult
from ..engine.base import ContextOverflow, Engine, EngineError, Generation, Message
from ..events import EventSink, TaskStarted, step_record
from ..sandbox.tools import SKIP_DIRS
from ..sandbox.workspace import Workspace

SYSTEM_PROMPT = "You are an expert software engineer who fixes bugs precisely."
_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:\n```|\Z)", re.DOTALL)
_LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".go": "go",
              ".rs": "rust", ".c": "c", ".h": "c", ".cpp": "cpp", ".java": "java",
              ".sh": "bash", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml",
              ".json": "json", ".md": "markdown", ".cfg": "ini", ".ini": "ini"}
# the answer may rewrite the file a little longer than it was
_ANSWER_MARGIN_TOKENS = 256
# documents an issue may cite as the reference, never the file to fix
_DOC_SUFFIXES = {".md", ".rst", ".txt", ".adoc"}


@dataclass(frozen=True)
class _Written:
    exit_code: int | None
    error: bool
    retrieval: None = None


def file_to_fix(ws_root: Path, issue: str) -> tuple[str | None, str]:
    """(the one source file the issue names, '') or (None, why the task is skipped). Tests
    and documents (README.md, a spec) are never the file to fix."""
    named = sorted({rel for rel in _source_files(ws_root) if _named(rel, issue)})
    if len(named) == 1:
        return named[0], ""
    if not named:
        return None, "single-shot needs an issue that names the file to fix; it names none"
    return None, f"single-shot needs one file to fix; the issue names {len(named)}: " + \
        ", ".join(named[:5])


def _source_files(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or any(part in SKIP_DIRS for part in rel.parts):
            continue
        if rel.parts[0] in ("tests", "test") or rel.name.startswith("test_"):
            continue
        if rel.suffix.lower() in _DOC_SUFFIXES:
            continue
        out.append(rel.as_posix())
    return out


def _named(rel: str, issue: str) -> bool:
    return re.search(rf"(?<![\w/.-]){re.escape(rel)}(?![\w/-])", issue) is not None


def single_shot_prompt(rel: str, content: str, title: str, issue: str) -> list[Message]:
    language = _LANGUAGES.get(Path(rel).suffix, "")
    user = (f"Fix this issue by changing {rel}.\n\n# Issue: {title}\n\n{issue.strip()}\n\n"
            f"# The current {rel}\n\n```{language}\n{content}\n```\n\n"
            f"Answer with the complete corrected {rel} in one fenced code block, and "
            "nothing else.")
    return [Message("system", SYSTEM_PROMPT), Message("user", user)]


def corrected_file(answer: str) -> str | None:
    """The first fenced block of the answer (a cut-off block up to where it stops)."""
    match = _FENCE.search(answer)
    if match is None:
        return None
    body = match.group(1)
    return body if body.endswith("\n") else body + "\n"


def run_single_shot(
    *, task_id: str, attempt: int, title: str, issue: str, engine: Engine, ws: Workspace,
    sink: EventSink, stop_requested: Callable[[], bool | str] = lambda: False,
) -> LoopResult:
    rel, why = file_to_fix(ws.root, issue)
    if rel is None:
        return LoopResult("skipped", 0, 0, why)
    path = ws.resolve(rel)
    content = path.read_text(errors="replace")
    messages = single_shot_prompt(rel, content, title, issue)
    sink.emit(TaskStarted(task_id, attempt, title, messages[0].text, messages[1].text))
    if stop_requested():
        return LoopResult("interrupted", 0, 0)
    wall_start = time.time()
    try:
        gen = _generate(engine, messages, engine.count_tokens(content) + _ANSWER_MARGIN_TOKENS)
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


def _generate(engine: Engine, messages: list[Message], budget: int) -> Generation:
    """One generation with the whole-file budget, or what the window leaves of it."""
    try:
        return engine.generate(messages, max_tokens=budget)
    except ContextOverflow as exc:
        room = exc.limit - (exc.needed - budget)
        if room < budget // 2:
            raise
        return engine.generate(messages, max_tokens=room)
