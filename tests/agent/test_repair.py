"""Repair drafts (agent/repair.py): after a whole-file draft fails the visible tests, the
model is shown the file as it drafted it and the tests' output, failing lines first and
trimmed, and answers with the whole file again; a repair that passes is kept, one that fails
is put back byte for byte, and the hidden tests never reach a prompt.

Through the real runner, sandbox, grading and store, a scripted engine playing the model.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted import ScriptedEngine
from scripted_run import run_fix_add

from edgeagent.agent.repair import (
    FEEDBACK_TOKENS,
    SAMPLED_DRAFT_TEMPERATURE,
    failing_first,
    tried_note,
)
from edgeagent.agent.whole_file import SYSTEM_PROMPT
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.errors import ConfigError

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


class ReadingEngine(RepairEngine):
    """A draft that fails, then a loop that only ever reads (a different line each time, so
    the stuck rule does not end it first)."""

    def __init__(self) -> None:
        super().__init__("a * b")
        self.loop = [json.dumps({"name": "read_file", "arguments": {
            "path": "calc.py", "start_line": 1, "end_line": n}}) for n in range(1, 30)]


@pytest.mark.slow
def test_after_a_draft_that_was_not_kept_the_loop_gets_its_step_budget(
        tiny_model_path: Path, tmp_path: Path) -> None:
    task, steps, _, prov = _run(tmp_path, tiny_model_path, ReadingEngine(),
                                after_draft_steps=3)
    assert [s["action_name"] for s in steps] == ["draft"] + ["read_file"] * 3
    assert task["termination"] == "step_budget" and task["steps"] == 4
    assert task["termination_detail"] == "3 steps after a whole-file draft that was not kept"
    assert prov["agent"]["after_draft_steps"] == 3
    # a budget past the step limit leaves the step limit in charge
    task, steps, _, _ = _run(tmp_path / "b", tiny_model_path, ReadingEngine(),
                             after_draft_steps=30, max_steps=5)
    assert task["termination"] == "max_steps" and len(steps) == 5


@pytest.mark.slow
def test_the_default_budget_is_four_steps_and_zero_lifts_it(
        tiny_model_path: Path, tmp_path: Path) -> None:
    task, steps, _, prov = _run(tmp_path, tiny_model_path, ReadingEngine(), max_steps=12)
    assert [s["action_name"] for s in steps] == ["draft"] + ["read_file"] * 4
    assert task["termination"] == "step_budget"
    assert prov["agent"]["after_draft_steps"] == 4
    task, steps, _, prov = _run(tmp_path / "b", tiny_model_path, ReadingEngine(),
                                after_draft_steps=0, max_steps=12)
    assert task["termination"] == "max_steps" and len(steps) == 12
    assert prov["agent"]["after_draft_steps"] == 0


def test_a_config_recorded_before_the_budget_resumes_without_it(tmp_path: Path) -> None:
    """A run directory's config.yaml from before the default says `after_draft_steps: null`:
    --resume reads it as it ran, up to the step limit."""
    path = tmp_path / "config.yaml"
    path.write_text("suite: smoke\nafter_draft_steps: null\n")
    config = load_config(path, {})
    assert config.after_draft_steps is None
    assert load_config(None, {}).after_draft_steps == 4
    with pytest.raises(ConfigError, match="after_draft_steps"):
        path.write_text("after_draft_steps: -1\n")
        load_config(path, {})


@pytest.mark.slow
def test_without_a_draft_the_step_budget_does_not_apply(
        tiny_model_path: Path, tmp_path: Path) -> None:
    task, steps, _, _ = _run(tmp_path, tiny_model_path, ReadingEngine(), draft_first=False,
                             after_draft_steps=2, max_steps=5)
    assert [s["action_name"] for s in steps] == ["read_file"] * 5
    assert task["termination"] == "max_steps"


class SamplingEngine(RepairEngine):
    """RepairEngine that can sample per call (as both real engines can): each answer notes
    the (temperature, seed) it was asked under, None when greedy."""

    def __init__(self, *fixes: str) -> None:
        super().__init__(*fixes)
        self.current: tuple[float | None, int | None] | None = None
        self.seen: list[tuple[float | None, int | None] | None] = []

    @contextlib.contextmanager
    def sampling_override(self, temperature: float | None = None, top_p: float | None = None,
                          seed: int | None = None) -> Iterator[None]:
        saved, self.current = self.current, (temperature, seed)
        try:
            yield
        finally:
            self.current = saved

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        self.seen.append(self.current)
        return super().answer(call, messages)


@pytest.mark.slow
def test_sampled_drafts_follow_a_draft_that_changed_nothing(
        tiny_model_path: Path, tmp_path: Path) -> None:
    """`sample`: the draft's own prompt again, sampled and seeded by the round, also after a
    draft that copied the file (which greedy repairs cannot follow: no test ran on it)."""
    engine = SamplingEngine("a - b", "a * b", "a + b")
    task, steps, recorded, prov = _run(tmp_path, tiny_model_path, engine, repair=3,
                                       repair_strategy="sample")
    assert [s["action_name"] for s in steps] == ["draft", "repair", "repair"]
    assert engine.seen == [None, (SAMPLED_DRAFT_TEMPERATURE, 1), (SAMPLED_DRAFT_TEMPERATURE, 2)]
    assert task["outcome"] == "resolved" and task["termination"] == "submitted"
    assert "changes no line" in recorded[0]["observation"]
    assert "so it was put back" in recorded[1]["observation"]
    # each round asked what the draft asked, not the repair prompt
    assert recorded[1]["prompt"] == recorded[0]["prompt"] == recorded[2]["prompt"]
    args = json.loads(steps[1]["action_args_json"])
    assert args["strategy"] == "sample" and args["sampled"] == [SAMPLED_DRAFT_TEMPERATURE, 1]
    assert prov["agent"]["repair"]["strategy"] == "sample"
    assert "sampled" in prov["agent"]["repair"]["decoding"]
    # greedy repairs need a draft the tests ran on: none here, so the loop starts at once
    greedy = SamplingEngine("a - b")
    _, steps, _, _ = _run(tmp_path / "greedy", tiny_model_path, greedy, repair=3)
    assert [s["action_name"] for s in steps] == ["draft", "read_file", "submit"]
    assert greedy.seen == [None, None, None]


@pytest.mark.slow
def test_mixed_rounds_are_sampled_repairs_of_the_tested_draft(
        tiny_model_path: Path, tmp_path: Path) -> None:
    engine = SamplingEngine("a * b", "a + b")
    task, steps, recorded, _ = _run(tmp_path, tiny_model_path, engine, repair=2,
                                    repair_strategy="mix")
    assert [s["action_name"] for s in steps] == ["draft", "repair"]
    assert engine.seen == [None, (SAMPLED_DRAFT_TEMPERATURE, 1)]
    repair_prompt = recorded[1]["prompt"][1]["content"]
    assert "return a * b" in repair_prompt and REPAIR_HEAD in repair_prompt
    assert task["outcome"] == "resolved"


def test_sampled_rounds_refuse_speculative_decoding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from edgeagent import cli

    argv = ["run", "--spec", "prompt-lookup", "--repair", "2", "--repair-strategy", "sample",
            "--headless", "--out", str(tmp_path)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "repair_strategy sample samples" in err
