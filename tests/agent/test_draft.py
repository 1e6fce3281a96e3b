"""Draft first (agent/draft.py): when the issue names one source file, step 0 asks for the
whole corrected file, writes it, runs the visible tests and keeps it only if they pass;
otherwise the file is put back byte for byte and the loop starts without it.

Through the real runner, sandbox, grading and store, a scripted engine playing the model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scripted import ScriptedEngine
from scripted_run import run_fix_add

from edgeagent import cli
from edgeagent.agent import (
    SYSTEM_PROMPT,
    apply_draft,
    changes_a_line,
    draft_target,
)
from edgeagent.config import load_config
from edgeagent.engine.base import ContextOverflow, EngineError, Message
from edgeagent.replay.export import run_conversations
from edgeagent.rundir import open_run_db
from edgeagent.sandbox.process import ProcessLimits
from edgeagent.sandbox.tools import Toolbox
from edgeagent.sandbox.workspace import Workspace

READ = json.dumps({"name": "read_file", "arguments": {"path": "calc.py"}})
SUBMIT = json.dumps({"name": "submit", "arguments": {}})


class DraftEngine(ScriptedEngine):
    """Answers the whole-file prompt with the file it was shown, `a - b` replaced by `fix`
    (or raises `fix` when it is an exception); the loop's prompts with `loop` in turn."""

    def __init__(self, fix: str | Exception | None, loop: tuple[str, ...] = (READ, SUBMIT),
                 fence: bool = True) -> None:
        super().__init__()
        self.fix, self.loop, self.fence = fix, list(loop), fence
        self.prompts: list[list[Message]] = []

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        self.prompts.append(messages)
        if messages[0].text == SYSTEM_PROMPT:
            if isinstance(self.fix, Exception):
                raise self.fix
            shown = re.search(r"```\w*\n(.*?)\n```", messages[-1].text, re.DOTALL)
            assert shown is not None
            body = shown.group(1) if self.fix is None else \
                shown.group(1).replace("a - b", self.fix)
            return (f"```python\n{body}\n```" if self.fence else body), "stop"
        return (self.loop.pop(0) if self.loop else SUBMIT), "stop"


_run = run_fix_add


@pytest.mark.slow
def test_a_draft_that_passes_the_visible_tests_is_kept_and_graded(
        tiny_model_path: Path, tmp_path: Path) -> None:
    engine = DraftEngine("a + b")
    _, task, steps, trajectory = _run(tmp_path, tiny_model_path, engine)
    assert engine.calls == 1  # the draft alone: no loop step
    assert task["outcome"] == "resolved" and task["termination"] == "submitted"
    assert task["steps"] == 1 and "passed the visible tests" in task["termination_detail"]
    assert [(s["step"], s["action_name"], s["tool_exit_code"]) for s in steps] == \
        [(0, "draft", 0)]
    assert json.loads(steps[0]["action_args_json"]) == {"path": "calc.py",
                                                         "found_by": "named in the issue"}
    recorded = [r for r in trajectory if r["type"] == "step"][0]
    # the draft's own prompt is in the trajectory: the issue and the whole file
    assert [m["role"] for m in recorded["prompt"]] == ["system", "user"]
    assert "def multiply" in recorded["prompt"][1]["content"]
    assert "the tests pass" in recorded["observation"]


@pytest.mark.slow
def test_a_draft_that_fails_the_tests_is_put_back_and_the_loop_starts_clean(
        tiny_model_path: Path, tmp_path: Path) -> None:
    engine = DraftEngine("b - a")  # wrong: test_add fails
    run_dir, task, steps, trajectory = _run(tmp_path, tiny_model_path, engine)
    assert [(s["step"], s["action_name"]) for s in steps] == \
        [(0, "draft"), (1, "read_file"), (2, "submit")]
    assert steps[0]["tool_exit_code"] not in (0, None)
    observations = [r["observation"] for r in trajectory if r["type"] == "step"]
    assert "the tests fail, so it was put back" in observations[0]
    assert "return a - b" in observations[1]  # the loop reads the original file
    conversation = engine.prompts[1]  # the loop's messages: its prompts, none of the draft
    assert conversation[0].text != SYSTEM_PROMPT
    assert not any("b - a" in m.text for m in conversation)
    assert task["outcome"] == "unresolved" and task["steps"] == 3
    # an exported run's conversation is the loop's: the draft is not a turn of it
    (exported,) = run_conversations(run_dir)
    assert "put back" not in json.dumps(exported, default=str)


@pytest.mark.slow
@pytest.mark.parametrize("fix, fence, why", [
    (None, True, "changes no line of calc.py"),
    ("a - b   ", True, "changes no line"),  # trailing spaces aside
    ("a + b", False, "no fenced code block"),
])
def test_a_draft_that_changes_nothing_is_not_written(
        tiny_model_path: Path, tmp_path: Path, fix: str | None, fence: bool, why: str) -> None:
    engine = DraftEngine(fix, fence=fence)
    _, _, steps, trajectory = _run(tmp_path, tiny_model_path, engine)
    assert steps[0]["action_name"] == "draft" and steps[0]["tool_exit_code"] is None
    recorded = [r for r in trajectory if r["type"] == "step"][0]
    assert why in recorded["observation"]
    assert recorded["tool_error"] is False  # nothing was written or run: no tool failed
    assert [s["action_name"] for s in steps[1:]] == ["read_file", "submit"]


@pytest.mark.slow
def test_no_draft_first_runs_the_loop_alone(tiny_model_path: Path, tmp_path: Path) -> None:
    engine = DraftEngine("a + b")
    _, task, steps, _ = _run(tmp_path, tiny_model_path, engine, draft_first=False)
    assert all(p[0].text != SYSTEM_PROMPT for p in engine.prompts)
    assert [(s["step"], s["action_name"]) for s in steps] == [(0, "read_file"), (1, "submit")]
    assert task["outcome"] == "unresolved"


def test_the_config_key_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("draft_first: maybe\n")
    assert cli.main(["run", "--config", str(bad), "--headless", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "draft_first" in err and len(err.strip().splitlines()) == 1
    config = load_config(None, {"draft_first": False})
    assert config.draft_first is False and load_config(None, {}).draft_first is True


@pytest.mark.slow
def test_an_engine_error_in_the_draft_ends_the_task_as_the_loop_would(
        tiny_model_path: Path, tmp_path: Path) -> None:
    _, task, steps, _ = _run(tmp_path, tiny_model_path, DraftEngine(EngineError("gone")))
    assert task["termination"] == "engine_error" and "gone" in task["error"]
    assert steps == []


@pytest.mark.slow
def test_a_file_too_long_for_the_window_leaves_the_task_to_the_loop(
        tiny_model_path: Path, tmp_path: Path) -> None:
    engine = DraftEngine(ContextOverflow(needed=9000, limit=8192))
    _, _, steps, _ = _run(tmp_path, tiny_model_path, engine)
    assert [(s["step"], s["action_name"]) for s in steps] == [(0, "read_file"), (1, "submit")]


@pytest.mark.slow
def test_put_back_restores_the_exact_bytes_of_the_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    original = "# café, CRLF lines\r\ndef add(a, b):\r\n    return a - b\r\n".encode()
    (repo / "calc.py").write_bytes(original)
    with Workspace.create(repo) as ws:
        toolbox = Toolbox(ws, "exit 1", ProcessLimits(timeout_s=30))
        target = draft_target(toolbox, "add", "calc.py: add subtracts")
        assert target is not None and target.path == "calc.py"
        outcome = apply_draft(toolbox, target, "```\n" + target.text.replace("-", "+") + "```")
        assert not outcome.kept and outcome.result.exit_code == 1
        assert (ws.root / "calc.py").read_bytes() == original
        kept = Toolbox(ws, "true", ProcessLimits(timeout_s=30))
        assert apply_draft(kept, target, "```\n" + target.text.replace("-", "+") + "```").kept
        assert (ws.root / "calc.py").read_bytes() == original.replace(b"-", b"+")


def test_no_draft_of_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    """Its bytes cannot go into a prompt unchanged (the engine tokenizes UTF-8), and a
    corrected copy would not keep them: the loop's tools take it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.py").write_bytes(b"# caf\xe9 (latin-1)\ndef add(a, b):\n    return a - b\n")
    with Workspace.create(repo) as ws:
        toolbox = Toolbox(ws, "true", ProcessLimits(timeout_s=30))
        assert draft_target(toolbox, "add", "calc.py: add subtracts") is None


def test_no_draft_when_the_issue_names_no_single_text_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "a.py").write_text("x = 1\n")
    (repo / "b.py").write_text("y = 2\n")
    (repo / "blob.bin").write_bytes(b"\0\1\2")
    (repo / "tests" / "test_a.py").write_text("")
    with Workspace.create(repo) as ws:
        toolbox = Toolbox(ws, "true", ProcessLimits(timeout_s=30))
        assert draft_target(toolbox, "t", "a.py and b.py disagree") is None  # two files
        assert draft_target(toolbox, "t", "the constant is wrong") is None  # none
        assert draft_target(toolbox, "t", "blob.bin is wrong") is None  # binary
        assert draft_target(toolbox, "t", "tests/test_a.py is wrong") is None  # a test
        assert draft_target(toolbox, "t", "a.py is wrong") is not None


def test_changes_a_line() -> None:
    before = "a\nb\nc\n"
    assert not changes_a_line(before, "a\nb\nc")  # the final newline aside
    assert not changes_a_line(before, "a  \nb\nc\n")  # trailing spaces aside
    assert not changes_a_line(before, "a\nc\n")  # a line dropped only
    assert changes_a_line(before, "a\nB\nc\n")
    assert changes_a_line(before, "a\nb\nb2\nc\n")  # a line added


@pytest.mark.slow
def test_the_no_draft_first_flag_reaches_the_run(tiny_model_path: Path, tmp_path: Path) -> None:
    import yaml

    cli.main(["run", "--model", str(tiny_model_path), "--no-draft-first", "--headless",
              "--task", "fix-add", "--max-steps", "2", "--out", str(tmp_path)])
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["draft_first"] is False
    db = open_run_db(run_dir)
    try:
        actions = [r[0] for r in db.execute("SELECT action_name FROM steps ORDER BY step")]
        assert actions and "draft" not in actions
    finally:
        db.close()


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return repo


STOCK = {
    "stock/__init__.py": "",
    "stock/item.py": "class Item:\n    def price(self):\n        return 1\n",
    "stock/errors.py": "class StockError(Exception):\n    pass\n",
    "stock/inventory.py": "class Inventory:\n    def total_value(self):\n        return 0\n",
    "tests/test_inventory.py": "def test_total_value():\n    pass\n",
}


@pytest.mark.parametrize("issue, expected", [
    # a failing test's name, without its test_ prefix, names what it tests
    ("CI is red: tests/test_inventory.py::test_total_value fails", "stock/inventory.py"),
    ("`Inventory.total_value()` is off by the quantity", "stock/inventory.py"),
    ("the value from stock.inventory.total_value is wrong", "stock/inventory.py"),
    # the exception it raises is not where the bug is
    ("total_value() raises `StockError` on an empty stock", "stock/inventory.py"),
    ("Item.price( and Inventory( disagree", None),  # defined in two files
    ("the stock value is wrong", None),  # names nothing
    ("`test_inventory` is flaky", None),  # only a test defines it... and no source does
])
def test_a_file_the_issue_does_not_name_is_found_by_what_it_defines(
        tmp_path: Path, issue: str, expected: str | None) -> None:
    with Workspace.create(_repo(tmp_path, STOCK)) as ws:
        target = draft_target(Toolbox(ws, "true", ProcessLimits(timeout_s=30)), "t", issue)
    assert (target.path if target else None) == expected
    if target is not None:
        assert target.found_by.startswith("the issue names none; it defines ")
        assert "total_value" in target.found_by
        assert "Fix this issue by changing stock/inventory.py" in target.messages[1].text


def test_other_languages_definitions_are_found(tmp_path: Path) -> None:
    files = {"src/queue.go": "package q\n\nfunc (q *Queue) PushJob(j Job) {}\n",
             "web/date.js": "export function formatDate(d) { return d }\n",
             "core/lib.rs": "pub fn parse_amount(s: &str) -> i64 { 0 }\n"}
    with Workspace.create(_repo(tmp_path, files)) as ws:
        box = Toolbox(ws, "true", ProcessLimits(timeout_s=30))
        found = [draft_target(box, "t", issue) for issue in
                 ("PushJob() drops jobs", "`formatDate` shows UTC", "parse_amount(\"1,5\") fails")]
    assert [t.path if t else None for t in found] == ["src/queue.go", "web/date.js",
                                                     "core/lib.rs"]


def test_a_symlinked_source_file_is_not_read_to_locate(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("def secret_total():\n    pass\n")
    repo = _repo(tmp_path, {"pkg/real.py": "x = 1\n"})
    (repo / "pkg" / "link.py").symlink_to(outside)
    with Workspace.create(repo) as ws:
        box = Toolbox(ws, "true", ProcessLimits(timeout_s=30))
        assert draft_target(box, "t", "secret_total() is wrong") is None
