"""The core suite format (tier, kinds, FAIL_TO_PASS/PASS_TO_PASS), validation of broken tasks,
`tasks list --json`, `tasks show`, and the external-suite converter."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from paths import ROOT

from edgeagent import cli
from edgeagent.errors import SuiteError
from edgeagent.sandbox.process import ProcessLimits
from edgeagent.suite import TASK_KINDS, TIERS, load_suite, validate_task

LIMITS = ProcessLimits(timeout_s=20.0)

CODE = "def double(x):\n    return x + x\n\n\ndef triple(x):\n    return x * 2\n"
HIDDEN = """\
import unittest

from mathy import double, triple


class TestMathy(unittest.TestCase):
    def test_triple(self):
        self.assertEqual(triple(3), 9)

    def test_double(self):
        self.assertEqual(double(3), 6)
"""
TASK = """\
id: {id}
title: triple() doubles
tier: easy
tags: [one-line-bug, tiny]
issue: triple(3) returns 6 instead of 9 (mathy.py).
test_command: python -m unittest discover -s tests -t . -q
hidden_test_command: python -m unittest discover -s tests_hidden -t . -q
fail_to_pass: [tests_hidden.test_mathy.TestMathy.test_triple]
pass_to_pass: [tests_hidden.test_mathy.TestMathy.test_double]
limits: {{command_timeout_s: 20, test_timeout_s: 2}}
"""
ORACLE = """\
- tool: read_file
  args: {path: mathy.py}
- tool: edit
  args: {path: mathy.py, old: "return x * 2", new: "return x * 3"}
- tool: run_tests
  args: {}
- tool: submit
  args: {}
"""


def make_task(suite: Path, task_id: str = "bad-task", *, task: str = TASK, code: str = CODE,
              hidden: str = HIDDEN, oracle: str = ORACLE, strict: bool = True) -> Path:
    """A one-file task (mathy.py) in `suite`; its parts can be swapped to break it."""
    d = suite / task_id
    (d / "repo" / "tests").mkdir(parents=True)
    (d / "hidden_tests" / "tests_hidden").mkdir(parents=True)
    (d / "repo" / "mathy.py").write_text(code)
    (d / "repo" / "tests" / "__init__.py").write_text("")
    (d / "repo" / "tests" / "test_smoke.py").write_text(
        "import unittest\n\nimport mathy\n\n\nclass T(unittest.TestCase):\n"
        "    def test_import(self):\n        self.assertTrue(mathy.double)\n"
    )
    (d / "hidden_tests" / "tests_hidden" / "__init__.py").write_text("")
    (d / "hidden_tests" / "tests_hidden" / "test_mathy.py").write_text(hidden)
    (d / "task.yaml").write_text(task.format(id=task_id))
    (d / "oracle.yaml").write_text(oracle)
    if strict:
        (suite / "suite.yaml").write_text("strict: true\n")
    return d


def problems_of(suite: Path) -> list[str]:
    (task,) = load_suite(str(suite)).tasks
    return list(validate_task(task, LIMITS).problems)


# ------------------------------------------------------------------ format


@pytest.mark.slow
def test_good_task_loads_and_validates(tmp_path: Path) -> None:
    make_task(tmp_path)
    (task,) = load_suite(str(tmp_path)).tasks
    assert task.tier == "easy" and task.kinds == ("one-line-bug",)
    assert task.fail_to_pass == ("tests_hidden.test_mathy.TestMathy.test_triple",)
    assert task.limits.test_timeout_s == 2.0
    result = validate_task(task, LIMITS)
    assert result.ok, result.problems
    assert {o.status for o in result.before.tests} == {"pass", "fail"}
    assert all(o.status == "pass" for o in result.after.tests)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("tier: easy", "tier: trivial", "key 'tier' must be one of easy, medium, hard"),
        ("tier: easy\n", "", "key 'tier' is missing"),
        ("tags: [one-line-bug, tiny]", "tags: [tiny]", "names no task kind"),
        ("fail_to_pass: [tests_hidden", "fail_to_pass: [not an id, tests_hidden",
         "not a unittest id"),
        ("pass_to_pass: [tests_hidden.test_mathy.TestMathy.test_double]",
         "pass_to_pass: [tests_hidden.test_mathy.TestMathy.test_triple]", "in both"),
        ("fail_to_pass: [tests_hidden.test_mathy.TestMathy.test_triple]\n", "",
         "without 'fail_to_pass'"),
    ],
)
def test_format_errors_name_the_task_file_and_key(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    d = make_task(tmp_path)
    text = (d / "task.yaml").read_text()
    assert old in text
    (d / "task.yaml").write_text(text.replace(old, new))
    with pytest.raises(SuiteError) as info:
        load_suite(str(tmp_path))
    message = str(info.value)
    assert "bad-task/task.yaml" in message.replace("\\", "/")
    assert expected in message
    assert "\n" not in message


@pytest.mark.slow
def test_tier_and_lists_are_optional_outside_strict_suites(tmp_path: Path) -> None:
    bare = "\n".join(
        line for line in TASK.splitlines()
        if not line.startswith(("tier", "fail_to_pass", "pass_to_pass"))
    )
    make_task(tmp_path, task=bare + "\n", strict=False)
    (task,) = load_suite(str(tmp_path)).tasks
    assert task.tier is None and task.fail_to_pass == ()
    assert validate_task(task, LIMITS).ok  # graded by the hidden command's exit code


def test_kinds_and_tiers_are_the_documented_ones() -> None:
    assert TIERS == ("easy", "medium", "hard", "guided")
    doc = (ROOT / "docs" / "tasks.md").read_text()
    assert all(f"`{kind}`" in doc for kind in TASK_KINDS)
    assert all(f"`{tier}`" in doc for tier in TIERS)


# ------------------------------------------------------------------ broken tasks


@pytest.mark.slow
def test_fail_to_pass_test_passing_before_the_fix_is_named(tmp_path: Path) -> None:
    make_task(tmp_path, code=CODE.replace("return x * 2", "return x * 3"),
              oracle=ORACLE.replace('old: "return x * 2", new: "return x * 3"',
                                    'old: "return x * 3", new: "return 3 * x"'))
    (problem,) = problems_of(tmp_path)
    assert "fail_to_pass test tests_hidden.test_mathy.TestMathy.test_triple passes before" in (
        problem
    )


@pytest.mark.slow
def test_pass_to_pass_test_failing_before_is_named(tmp_path: Path) -> None:
    make_task(tmp_path, code=CODE.replace("return x + x", "return x"),
              oracle=ORACLE.replace("- tool: run_tests", '- tool: edit\n  args: {path: mathy.py,'
                                    ' old: "return x\\n", new: "return x + x\\n"}\n'
                                    "- tool: run_tests"))
    problems = problems_of(tmp_path)
    assert any("pass_to_pass test tests_hidden.test_mathy.TestMathy.test_double does not pass "
               "before" in p for p in problems), problems


@pytest.mark.slow
def test_failing_oracle_step_is_named(tmp_path: Path) -> None:
    make_task(tmp_path, oracle=ORACLE.replace('old: "return x * 2"', 'old: "return x * 7"'))
    problems = problems_of(tmp_path)
    assert any(p.startswith("oracle step 2 (edit) failed: old text not found") for p in problems)


@pytest.mark.slow
def test_absent_test_id_is_named(tmp_path: Path) -> None:
    make_task(tmp_path, task=TASK.replace("TestMathy.test_triple]", "TestMathy.test_nope]"))
    problems = problems_of(tmp_path)
    assert any("test_nope cannot be loaded" in p for p in problems), problems


@pytest.mark.slow
def test_hidden_test_that_times_out_is_reported(tmp_path: Path) -> None:
    slow = HIDDEN.replace(
        "    def test_double(self):\n",
        "    def test_double(self):\n        while True:\n            pass\n",
    )
    make_task(tmp_path, hidden=slow, task=TASK.replace("test_timeout_s: 2", "test_timeout_s: 0.5"))
    (task,) = load_suite(str(tmp_path)).tasks
    problems = validate_task(task, ProcessLimits(timeout_s=2.0)).problems
    assert any("test_double does not pass before the fix (timeout" in p for p in problems)
    assert any("test_double times out after the oracle" in p for p in problems), problems
    assert any("hidden_test_command timed out after 2 s" in p for p in problems), problems


@pytest.mark.slow
def test_oracle_command_that_times_out_is_reported(tmp_path: Path) -> None:
    make_task(tmp_path, task=TASK.replace("command_timeout_s: 20", "command_timeout_s: 1"),
              oracle=ORACLE.replace("- tool: run_tests\n  args: {}",
                                    "- tool: run\n  args: {command: sleep 5}"))
    (task,) = load_suite(str(tmp_path)).tasks
    problems = validate_task(task, ProcessLimits(timeout_s=1.0)).problems
    assert any("oracle step 3 (run) timed out after 1 s" in p for p in problems), problems


def test_missing_repo_names_the_task(tmp_path: Path) -> None:
    d = make_task(tmp_path)
    (d / "repo" / "mathy.py").unlink()
    (d / "repo" / "tests" / "test_smoke.py").unlink()
    (d / "repo" / "tests" / "__init__.py").unlink()
    (d / "repo" / "tests").rmdir()
    (d / "repo").rmdir()
    with pytest.raises(SuiteError) as info:
        load_suite(str(tmp_path))
    assert "bad-task/repo/ is missing" in str(info.value).replace("\\", "/")


@pytest.mark.slow
def test_cli_validate_names_the_broken_task_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_task(tmp_path, "good-task")
    make_task(tmp_path, "bad-task", oracle=ORACLE.replace("return x * 2", "return y"))
    assert cli.main(["tasks", "validate", str(tmp_path), "--no-context"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAIL  bad-task: oracle step 2 (edit) failed")
    assert out[1].startswith("ok    good-task: 1 FAIL_TO_PASS fail before")
    assert out[-1] == "2 tasks, 1 failed"


# ------------------------------------------------------------------ list, show, context


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EDGEAGENT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "task-context"


@pytest.mark.slow
def test_tasks_list_json_shape(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "list", "smoke", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["fix-add", "fix-shout", "fix-sum-to"]
    for r in rows:
        assert set(r) >= {"id", "tier", "tags", "files", "lines", "oracle_steps",
                          "est_context_tokens", "context_per_step", "context_note"}
        assert r["files"] == 3 and r["lines"] > 10 and r["oracle_steps"] == 4
        if r["est_context_tokens"] is None:  # no default model on this machine
            assert r["context_note"]
        else:
            steps = r["context_per_step"]
            assert len(steps) == 4 and steps == sorted(steps)  # context only grows
            assert r["est_context_tokens"] > steps[-1] > 300
    if rows[0]["est_context_tokens"] is not None:  # computed once, then read from the cache
        assert len(list(cache.glob("*.json"))) == 3
        assert cli.main(["tasks", "list", "smoke", "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == rows


def test_tasks_list_table_has_header_and_columns(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["tasks", "list", "core", "--no-context"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "tier", "tags", "files", "lines", "steps", "context"]
    assert len(lines) - 1 == len(load_suite("core").tasks) >= 15


@pytest.mark.slow
def test_tasks_show_searches_bundled_suites(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["tasks", "show", "a01-fahrenheit-conversion", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["suite"] == "core" and shown["tier"] == "easy"
    assert "fahrenheit_to_celsius" in shown["issue"]
    assert shown["fail_to_pass"][0].startswith("tests_hidden.")
    assert cli.main(["tasks", "show", "smoke/fix-add"]) == 0
    assert capsys.readouterr().out.startswith("smoke/fix-add: add() subtracts")


def test_tasks_show_unknown_id_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "show", "no-such-task"]) == 2
    err = capsys.readouterr().err
    assert "no-such-task" in err and "core" in err and "smoke" in err


@pytest.mark.slow
def test_validate_reports_context_growth(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["tasks", "validate", "core", "--task", "a02-slugify-lowercase"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ok    a02-slugify-lowercase:")
    assert out[1].strip().startswith(("context tokens per step 1:", "context: not measured"))
    assert out[-1] == "1 task validated"  # singular for one


# ------------------------------------------------------------------ the bundled core tasks


def test_core_tasks_cover_the_spread() -> None:
    tasks = load_suite("core").tasks
    mine = [t for t in tasks if t.id.startswith("a")]
    assert len(mine) == 15
    tiers = [t.tier for t in mine]
    assert tiers.count("easy") >= 5 and tiers.count("hard") >= 3
    kinds = {k for t in mine for k in t.kinds}
    assert kinds >= {"one-line-bug", "multi-file-bug", "feature", "failing-test-diagnosis",
                     "performance", "config-cli"}


def test_core_c_tasks_are_shaped_for_the_small_model() -> None:
    """The c tasks are one-line bugs in a short module of a ~300-line repo; their guided
    twins (g-c*) name the exact line to replace."""
    c_tasks = [t for t in load_suite("core").tasks if t.id.startswith("g-c")]
    assert len(c_tasks) == 4
    for task in c_tasks:
        assert task.tier == "guided" and "one-line-bug" in task.kinds, task.id
        first, blank, *symptom = task.issue.splitlines()
        m = re.fullmatch(r"Replace `(.+)` with `(.+)` in (\S+)\.", first)
        assert m and blank == "" and symptom, task.id
        old, new, path = m.groups()
        buggy = (task.repo_dir / path).read_text()
        assert buggy.count(old) == 1 and new not in buggy, task.id
        assert 8 <= len(buggy.splitlines()) <= 20, task.id
        files = [p for p in task.repo_dir.rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts]
        assert len(files) >= 5, task.id
        assert 280 <= sum(len(p.read_text().splitlines()) for p in files) <= 360, task.id


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("EDGEAGENT_VALIDATE_CORE"),
                    reason="replays every core oracle (~2 min); set EDGEAGENT_VALIDATE_CORE=1")
def test_every_core_task_validates(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "validate", "core", "--no-context"]) == 0


@pytest.mark.slow
def test_a_core_task_validates(capsys: pytest.CaptureFixture[str]) -> None:
    """A quick check that bundled core tasks stay valid (all of them: the test above)."""
    ids = ["a05-inventory-failing-test", "d06-tollgate-capped-lorries"]
    suite = load_suite("core")
    for task in (t for t in suite.tasks if t.id in ids):
        result = validate_task(task, ProcessLimits(timeout_s=task.limits.command_timeout_s))
        assert result.ok, (task.id, result.problems)


# ------------------------------------------------------------------ external suite converter


@pytest.mark.slow
def test_converter_writes_a_valid_suite(tmp_path: Path) -> None:
    out = tmp_path / "ext"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    generators = ROOT / "tasks" / "generators"
    proc = subprocess.run(
        [sys.executable, str(generators / "convert_external_suite.py"),
         str(generators / "example_external_suite"), str(out)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "3 tasks written" in proc.stdout
    suite = load_suite(str(out))
    assert [t.id for t in suite.tasks] == ["ext-median", "ext-rle", "ext-roman"]
    for task in suite.tasks:
        assert task.fail_to_pass and task.tier == "easy"
        result = validate_task(task, LIMITS)
        assert result.ok, (task.id, result.problems)
    rle = next(t for t in suite.tasks if t.id == "ext-rle")
    assert sorted(rle.fail_to_pass) == [
        "tests_hidden.test_rle.TestRle.test_decode",
        "tests_hidden.test_rle.TestRle.test_round_trip",
    ]
    assert textwrap.dedent(rle.issue).startswith("decode([(")
