"""What the model reads: the task prompt names the issue's files first, and the issue's first
paragraph comes back after reads and failed edits (the two changes that took the 0.5B model
from 0 to 8 of 15 easy core tasks live; docs/results.md)."""

from __future__ import annotations

from pathlib import Path

from edgeagent.agent import prompt
from edgeagent.sandbox.process import ProcessLimits
from edgeagent.sandbox.tools import Toolbox, ToolResult
from edgeagent.sandbox.workspace import Workspace

ISSUE = (
    "Replace `x = a - 1` with `x = a + 1` in pkg/mod.py.\n\n"
    "Details: tests/test_mod.py fails with 1 != 3 since the last release."
)


def test_task_prompt_lists_named_files_first_and_says_where_to_start() -> None:
    files = ["README.md", "pkg/__init__.py", "tests/test_mod.py", "pkg/mod.py", "pkg/util.py"]
    text = prompt.task_prompt("x is off by two", ISSUE, files)
    listing = next(line for line in text.splitlines() if line.startswith("Files in"))
    assert listing == (
        "Files in the repository: pkg/mod.py, tests/test_mod.py, pkg/__init__.py, pkg/util.py, "
        "README.md"
    )
    assert text.endswith("The issue names pkg/mod.py: start by reading it with read_file.")


def test_a_named_test_file_alone_leads_to_the_code_it_imports() -> None:
    text = prompt.task_prompt("t", "tests/test_mod.py fails.", ["pkg/mod.py", "tests/test_mod.py"])
    assert text.endswith("The issue names tests/test_mod.py: start by reading it, then the code "
                         "it imports.")
    plain = prompt.task_prompt("t", "something is wrong", ["pkg/mod.py"])
    assert plain.endswith("Start by reading the code file named in the issue.")


def test_repo_files_keeps_named_files_past_the_listing_bound(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "a").mkdir(parents=True)
    for i in range(6):
        (repo / "a" / f"m{i}.py").write_text("x = 1\n")
    (repo / "z").mkdir()
    (repo / "z" / "deep.py").write_text("x = 1\n")
    with Workspace.create(repo) as ws:
        tools = Toolbox(ws, "true", ProcessLimits(timeout_s=5))
        assert tools.repo_files(limit=3) == ["a/m0.py", "a/m1.py", "a/m2.py", "..."]
        assert tools.repo_files(limit=3, named_in="see z/deep.py") == [
            "a/m0.py", "a/m1.py", "z/deep.py", "..."]


def _result(error: bool = False, exit_code: int | None = None) -> ToolResult:
    return ToolResult("body", exit_code, error, 1.0)


def test_issue_reminder_follows_reads_and_failed_edits_only() -> None:
    reminder = prompt.issue_reminder(ISSUE)
    assert reminder == "Replace `x = a - 1` with `x = a + 1` in pkg/mod.py."
    said = f"The issue says: {reminder}\nNext:"
    assert said in prompt.observation("read_file", _result(), "body", reminder=reminder)
    assert said in prompt.observation("edit", _result(error=True), "body", reminder=reminder)
    assert "The issue says" not in prompt.observation("edit", _result(), "ok", reminder=reminder)
    assert "The issue says" not in prompt.observation(
        "run_tests", _result(exit_code=1), "body", reminder=reminder)
    # a first paragraph too long to repeat every step is not repeated
    assert prompt.issue_reminder("word " * 200) is None
