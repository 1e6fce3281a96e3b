"""Draft first: before the step loop, when the issue names exactly one source file, the model
is shown the issue and that whole file and answers with the corrected file (whole_file.py).
The draft is written and the task's visible tests run; it is kept, and the task submitted,
when it changes a line and the tests pass. Otherwise the file is put back byte for byte and
the loop starts, its conversation free of the draft.

Why: measured on `core` (docs/results/loop-vs-baselines.md), the 1.5B model resolved 4 of the
easy tier's 15 tasks in the loop and 7 shown the file once; draft first resolved 9, the
union. A draft that keeps every line, or only drops lines, counts as none: small models copy
the file unchanged or lose a line, and the visible tests often pass on the buggy code.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from ..engine import Message
from ..sandbox import PathRefused, Toolbox, ToolResult
from .locate import defining_file
from .whole_file import (
    corrected_file,
    file_to_fix,
    source_files,
    source_text,
    whole_file_prompt,
)

# the step's tool result when the draft was not written: no tool ran, so none failed (the
# console would show "tool error"); the observation says why
_NOT_WRITTEN = ToolResult(output="", exit_code=None, error=False, wall_ms=0.0)


@dataclass(frozen=True)
class DraftTarget:
    """The file a draft rewrites and the prompt that asks for it."""

    path: str  # workspace-relative
    text: str  # as read (UTF-8: written back, it gives the same bytes)
    messages: tuple[Message, ...]
    found_by: str  # how the file was chosen, for the step's record


@dataclass(frozen=True)
class DraftOutcome:
    """What the draft did, as the step's record shows it."""

    kept: bool  # written and the visible tests passed: the task is submitted
    result: ToolResult  # the tests' run (or why nothing ran)
    observation: str
    # the file as drafted, when it was written and the tests ran on it (a repair's input)
    tested: str | None = None


def located_file(root: Path, issue: str) -> tuple[str, str] | None:
    """(workspace-relative path, how it was found) of the one file the issue points at: the
    one source file it names, else the one that defines what it names (locate.py); None
    when there is no single one. The draft's file, and the file an external agent that
    takes files (aider) is given."""
    rel, _ = file_to_fix(root, issue)
    if rel is not None:
        return rel, "named in the issue"
    rel, names = defining_file(root, source_files(root), issue)
    if rel is None:
        return None
    return rel, f"the issue names none; it defines {names}"


def draft_target(toolbox: Toolbox, title: str, issue: str) -> DraftTarget | None:
    """The draft's file and prompt, or None when the issue points at no single text file
    (located_file)."""
    ws = toolbox.workspace
    located = located_file(ws.root, issue)
    if located is None:
        return None
    rel, found_by = located
    try:
        data = ws.resolve(rel).read_bytes()
    except (OSError, PathRefused):  # refused or unreadable: the loop's tools will say why
        return None
    text = source_text(data)
    if text is None:  # binary or not UTF-8: left to the loop's tools
        return None
    return DraftTarget(rel, text, tuple(whole_file_prompt(rel, text, title, issue)), found_by)


def apply_draft(toolbox: Toolbox, target: DraftTarget, answer: str) -> DraftOutcome:
    """Writes the answer's file, runs the visible tests, keeps it only if they pass; the
    original file is back in place whenever the draft is not kept."""
    fixed = corrected_file(answer)
    if fixed is None:
        return DraftOutcome(False, _NOT_WRITTEN, "the draft has no fenced code block")
    if not changes_a_line(target.text, fixed):
        return DraftOutcome(False, _NOT_WRITTEN,
                            f"the draft changes no line of {target.path} (or only drops lines)")
    written = toolbox.call("write_file", {"path": target.path, "content": fixed})
    if written.error:
        return _put_back(toolbox, target, written, f"writing the draft failed: {written.output}")
    tests = toolbox.call("run_tests", {})
    if tests.exit_code == 0 and not tests.error:
        return DraftOutcome(True, tests, f"wrote {target.path}; the tests pass:\n{tests.output}")
    return _put_back(toolbox, target, tests,
                     f"wrote {target.path}; the tests fail, so it was put back:\n{tests.output}",
                     tested=fixed)


def _put_back(toolbox: Toolbox, target: DraftTarget, result: ToolResult,
              observation: str, tested: str | None = None) -> DraftOutcome:
    restored = toolbox.call("write_file", {"path": target.path, "content": target.text})
    if restored.error:  # the loop starts on the draft: say so in the record
        observation += f"\nputting {target.path} back failed: {restored.output}"
    return DraftOutcome(False, result, observation, tested)


def changes_a_line(before: str, after: str) -> bool:
    """True when `after` changes or adds a line of `before` (trailing spaces and final
    newlines aside); dropping lines alone does not count."""
    a = [line.rstrip() for line in before.rstrip("\n").split("\n")]
    b = [line.rstrip() for line in after.rstrip("\n").split("\n")]
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return any(tag not in ("equal", "delete") for tag, *_ in ops)
