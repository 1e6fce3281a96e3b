"""Repair drafts (agent/repair.py): after a whole-file draft fails the visible tests, the
model is shown the file as it drafted it and the tests' output, failing lines first and
trimmed, and answers with the whole file again; a repair that passes is kept, one that fails
is put back byte for byte, and the hidden tests never reach a prompt.

Through the real runner, sandbox, grading and store, a scripted engine playing the model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scripted import ScriptedEngine
from scripted_run import run_fix_add

from edgeagent.agent.repair import FEEDBACK_TOKENS, failing_first, tried_note
from edgeagent.agent.whole_file import SYSTEM_PROMPT
from edgeagent.engine.base import Message

READ = json.dumps({"name": "read_file", "arguments": {"path": "calc.py"}})
SUBMIT = json.dumps({"name": "submit", "arguments": {}})
HIDDEN = "test_add_more_cases"  # a hidden test's name: never in any prompt
REPAIR_HEAD = "# The tests fail on it"


class RepairEngine(ScriptedEngine):
    """Answers the draft with `a - b` replaced by `fixes[0]`, each repair by the next fix
    (applied to the file it is shown, the drafted one); the loop's prompts with READ, then
    SUBMIT."""

    def __init__(self, *fixes: str) -> None:
        super().__init__()
        self.fixes = list(fixes)
        self.prompts: list[list[Message]] = []
        self.loop = [READ, SUBMIT]

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        self.prompts.append(messages)
        if messages[0].text != SYSTEM_PROMPT:
            return (self.loop.pop(0) if self.loop else SUBMIT), "stop"
        shown = re.search(r"```python\n(.*?)\n```", messages[-1].text, re.DOTALL)
        assert shown is not None
        body = shown.group(1)
        fix = self.fixes.pop(0)
        body = re.sub(r"return a [-*/] b|return b - a", f"return {fix}", body, count=1)
        return f"```python\n{body}\n```", "stop"


def _run(tmp_path: Path, model: Path, engine: ScriptedEngine, **settings: object):
    run_dir, task, steps, trajectory = run_fix_add(tmp_path, model, engine, **settings)
    prov = json.loads((run_dir / "provenance.json").read_text())
    return task, steps, [r for r in trajectory if r["type"] == "step"], prov


@pytest.mark.slow
def test_a_repair_that_passes_is_kept_and_sees_the_tests_output(
        tiny_model_path: Path, tmp_path: Path) -> None:
    engine = RepairEngine("a * b", "a + b")  # the draft multiplies; the repair fixes it
    task, steps, recorded, prov = _run(tmp_path, tiny_model_path, engine, repair=2)
    assert [(s["step"], s["action_name"]) for s in steps] == [(0, "draft"), (1, "repair")]
    assert steps[0]["tool_exit_code"] not in (0, None) and steps[1]["tool_exit_code"] == 0
    assert task["outcome"] == "resolved" and task["termination"] == "submitted"
    assert "the repair of calc.py passed the visible tests" in task["termination_detail"]
    repair_prompt = recorded[1]["prompt"][1]["content"]
    # the file as drafted, and what the visible tests said of it, failing lines first
    assert "return a * b" in repair_prompt and REPAIR_HEAD in repair_prompt
    feedback = repair_prompt.split(REPAIR_HEAD)[1]
    assert feedback.lstrip("\n`").startswith("What failed:")
    assert "AssertionError: 6 != 5" in feedback
    assert HIDDEN not in json.dumps(engine.prompts[0][-1].text + repair_prompt)
    assert prov["agent"]["repair"]["rounds"] == 2


@pytest.mark.slow
def test_repairs_that_fail_are_put_back_and_the_loop_is_told(
        tiny_model_path: Path, tmp_path: Path) -> None:
    engine = RepairEngine("a * b", "a / b", "b - a")
    task, steps, recorded, _ = _run(tmp_path, tiny_model_path, engine, repair=2)
    assert [(s["step"], s["action_name"]) for s in steps] == \
        [(0, "draft"), (1, "repair"), (2, "repair"), (3, "read_file"), (4, "submit")]
    assert all("so it was put back" in r["observation"] for r in recorded[:3])
    assert "return a - b" in recorded[3]["observation"]  # the original, byte for byte
    # each repair was shown the file its predecessor drafted
    assert "return a / b" in recorded[2]["prompt"][1]["content"]
    loop_prompt = engine.prompts[3]
    assert loop_prompt[0].text != SYSTEM_PROMPT
    assert loop_prompt[1].text.endswith(
        "Note: 3 whole-file rewrites of calc.py were tried and put back; the visible tests "
        "failed on each (last: " + loop_prompt[1].text.split("(last: ")[1])
    assert not any(HIDDEN in m.text for p in engine.prompts for m in p)
    assert task["outcome"] == "unresolved" and task["steps"] == 5


@pytest.mark.slow
def test_no_repair_by_default(tiny_model_path: Path, tmp_path: Path) -> None:
    engine = RepairEngine("a * b")
    _, steps, _, prov = _run(tmp_path, tiny_model_path, engine)
    assert [s["action_name"] for s in steps] == ["draft", "read_file", "submit"]
    assert "Note:" not in engine.prompts[1][1].text
    assert prov["agent"]["repair"] is None


def test_failing_lines_come_first_and_the_feedback_is_bounded() -> None:
    output = ("..F\n" + "=" * 70 + "\nFAIL: test_add (tests.test_calc.T)\n" + "-" * 70 +
              "\nTraceback (most recent call last):\n  File \"t.py\", line 5, in test_add\n"
              "    self.assertEqual(add(2, 3), 5)\nAssertionError: -1 != 5\n\nRan 3 tests\n"
              "FAILED (failures=1)\n")
    text = failing_first(output)
    head = text.split("The whole output:")[0].splitlines()
    assert head[0] == "What failed:" and head[1:3] == ["=" * 70,
                                                       "FAIL: test_add (tests.test_calc.T)"]
    assert "    self.assertEqual(add(2, 3), 5)" in head and "AssertionError: -1 != 5" in head
    assert "Ran 3 tests" in head and text.endswith(output)  # the line before FAILED (...)
    assert failing_first("all good\n") == "all good\n"
    assert tried_note("calc.py", 2, output) == (
        "Note: 2 whole-file rewrites of calc.py were tried and put back; the visible tests "
        "failed on each (last: AssertionError: -1 != 5).")
    assert FEEDBACK_TOKENS <= 1024  # the file and the feedback must fit a small window


def test_the_repair_key_is_checked(tmp_path: Path) -> None:
    from edgeagent import cli

    bad = tmp_path / "bad.yaml"
    bad.write_text("repair: -1\n")
    assert cli.main(["run", "--config", str(bad), "--headless", "--out", str(tmp_path)]) == 2


@pytest.mark.slow
def test_a_repair_that_repeats_its_draft_ends_the_repairs(
        tiny_model_path: Path, tmp_path: Path) -> None:
    """Asked the same again, a greedy model answers the same: no second repair."""
    engine = RepairEngine("a * b", "a * b", "a + b")
    task, steps, _, _ = _run(tmp_path, tiny_model_path, engine, repair=3)
    assert [s["action_name"] for s in steps] == ["draft", "repair", "read_file", "submit"]
    assert engine.prompts[2][0].text != SYSTEM_PROMPT
