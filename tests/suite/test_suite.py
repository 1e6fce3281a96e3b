"""Suites: discovery, strict task.yaml validation, hidden-test grading, oracle validation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from edgeagent.errors import SuiteError, UserError
from edgeagent.sandbox.process import ProcessLimits
from edgeagent.sandbox.workspace import Workspace
from edgeagent.suite import (
    Suite,
    grade,
    load_oracle,
    load_suite,
    run_test_ids,
    select_tasks,
    suites_root,
    validate_task,
)

SMOKE_IDS = ("fix-add", "fix-shout", "fix-sum-to")
LIMITS = ProcessLimits(timeout_s=30.0)


@pytest.fixture(scope="module")
def smoke() -> Suite:
    return load_suite("smoke")


def copy_task(tmp_path: Path, task_id: str = "fix-add", name: str = "bad-task") -> Path:
    """A one-task suite in tmp_path whose task is a copy of a smoke task, renamed to `name`."""
    suite_dir = tmp_path / "suite"
    task_dir = suite_dir / name
    shutil.copytree(suites_root() / "smoke" / task_id, task_dir)
    task_yaml = task_dir / "task.yaml"
    task_yaml.write_text(
        task_yaml.read_text().replace(f"id: {task_id}\n", f"id: {name}\n"), encoding="utf-8"
    )
    return task_dir


def edit_yaml(task_dir: Path, old: str, new: str) -> None:
    file = task_dir / "task.yaml"
    text = file.read_text()
    assert old in text, f"fixture drift: {old!r} not in task.yaml"
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def suite_error(path: Path) -> str:
    with pytest.raises(SuiteError) as info:
        load_suite(str(path))
    return str(info.value)


# ------------------------------------------------------------------ discovery


def test_smoke_suite_has_three_sorted_tasks(smoke: Suite) -> None:
    assert smoke.name == "smoke"
    assert tuple(t.id for t in smoke.tasks) == SMOKE_IDS
    for task in smoke.tasks:
        assert task.dir.name == task.id
        assert task.repo_dir.is_dir() and task.hidden_tests_dir.is_dir()
        assert task.issue and task.title and task.test_command and task.hidden_test_command
        assert task.limits.max_steps == 12
        assert task.limits.wall_s == 600.0
        assert task.limits.command_timeout_s == 60.0
        assert "smoke" in task.tags


def test_load_suite_by_path_equals_by_name(smoke: Suite) -> None:
    assert load_suite(str(suites_root() / "smoke")).tasks == smoke.tasks


def test_select_tasks(smoke: Suite) -> None:
    assert select_tasks(smoke, None) == smoke.tasks
    assert [t.id for t in select_tasks(smoke, ["fix-shout", "fix-add"])] == ["fix-shout", "fix-add"]


def test_unknown_task_id_names_it_and_lists_known(smoke: Suite) -> None:
    with pytest.raises(SuiteError) as info:
        select_tasks(smoke, ["fix-add", "no-such-task"])
    message = str(info.value)
    assert "no-such-task" in message
    assert all(task_id in message for task_id in SMOKE_IDS)


def test_unknown_suite_lists_bundled_suites() -> None:
    with pytest.raises(SuiteError) as info:
        load_suite("no-such-suite")
    assert "no-such-suite" in str(info.value) and "smoke" in str(info.value)
    assert isinstance(info.value, UserError)


def test_missing_suite_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert str(missing) in suite_error(missing)


def test_task_directory_given_as_suite(tmp_path: Path) -> None:
    task_dir = copy_task(tmp_path)
    assert "not a suite" in suite_error(task_dir)


def test_empty_suite(tmp_path: Path) -> None:
    assert "no tasks" in suite_error(tmp_path)


# ------------------------------------------------------------------ malformed task.yaml


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("title: add() subtracts instead of adding\n", "", "'title'"),  # missing key
        ("issue: |", "issue_text: |", "'issue_text'"),  # misspelt key
        ("tags: [", "colour: blue\ntags: [", "'colour'"),  # unknown key
        ("max_steps: 12", "max_steps: twelve", "limits.max_steps"),  # wrong type
        ("wall_s: 600", "wall_s: -1", "limits.wall_s"),  # out of range
        ("title: add()", "title: add():", "line 2"),  # YAML syntax error: nested ": "
        ("tags: [smoke", "tags: [7", "'tags'"),  # wrong element type
        ("id: bad-task", "id: other-name", "'id'"),  # id/dir mismatch
        ("id: bad-task", "id: 42", "'id'"),  # not a string
    ],
)
def test_malformed_task_yaml_names_file_and_key(
    tmp_path: Path, old: str, new: str, key: str
) -> None:
    task_dir = copy_task(tmp_path)
    edit_yaml(task_dir, old, new)
    message = suite_error(task_dir.parent)
    assert "bad-task/task.yaml" in message.replace("\\", "/")
    assert key in message
    assert "\n" not in message


def test_misspelt_key_suggests_the_right_one(tmp_path: Path) -> None:
    task_dir = copy_task(tmp_path)
    edit_yaml(task_dir, "issue: |", "isue: |")
    assert "did you mean 'issue'" in suite_error(task_dir.parent)


def test_duplicate_key_is_a_syntax_error(tmp_path: Path) -> None:
    task_dir = copy_task(tmp_path)
    edit_yaml(task_dir, "tags:", "title: again\ntags:")
    message = suite_error(task_dir.parent)
    assert "bad-task/task.yaml" in message.replace("\\", "/") and "'title'" in message


@pytest.mark.parametrize("missing", ["repo", "hidden_tests"])
def test_missing_task_directory(tmp_path: Path, missing: str) -> None:
    task_dir = copy_task(tmp_path)
    shutil.rmtree(task_dir / missing)
    message = suite_error(task_dir.parent)
    assert "bad-task/task.yaml" in message.replace("\\", "/")
    assert f"{missing}/" in message


def test_task_dir_without_task_yaml(tmp_path: Path) -> None:
    task_dir = copy_task(tmp_path)
    (task_dir / "task.yaml").unlink()
    assert "bad-task/task.yaml" in suite_error(task_dir.parent).replace("\\", "/")


@pytest.mark.parametrize(
    "oracle", ["- tool: submit\n  argz: {}\n", "- tool: teleport\n", "tool: submit\n"]
)
def test_malformed_oracle(tmp_path: Path, oracle: str) -> None:
    task_dir = copy_task(tmp_path)
    (task_dir / "oracle.yaml").write_text(oracle, encoding="utf-8")
    (task,) = load_suite(str(task_dir.parent)).tasks
    with pytest.raises(SuiteError) as info:
        load_oracle(task)
    assert "bad-task/oracle.yaml" in str(info.value).replace("\\", "/")


# ------------------------------------------------------------------ grading and validation


def test_oracle_ends_in_submit(smoke: Suite) -> None:
    for task in smoke.tasks:
        steps = load_oracle(task)
        assert steps[-1].tool == "submit"


@pytest.mark.slow
def test_grade_untouched_workspace_is_unresolved(smoke: Suite) -> None:
    task = smoke.tasks[0]
    with Workspace.create(task.repo_dir) as workspace:
        result = grade(task, workspace, LIMITS)
    assert not result.resolved
    assert result.exit_code not in (0, None) and not result.timed_out
    assert "FAILED" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("task_id", SMOKE_IDS)
def test_smoke_tasks_validate(smoke: Suite, task_id: str) -> None:
    (task,) = select_tasks(smoke, [task_id])
    result = validate_task(task, LIMITS)
    assert result.problems == ()
    assert result.ok
    assert not result.before.resolved
    assert result.after is not None and result.after.resolved


@pytest.mark.slow
def test_validate_flags_an_oracle_that_does_not_fix(tmp_path: Path) -> None:
    task_dir = copy_task(tmp_path)
    (task_dir / "oracle.yaml").write_text("- tool: run_tests\n- tool: submit\n", encoding="utf-8")
    (task,) = load_suite(str(task_dir.parent)).tasks
    result = validate_task(task, LIMITS)
    assert not result.ok
    assert result.after is not None and not result.after.resolved
    assert any("fail after the oracle" in p for p in result.problems)


@pytest.mark.slow
def test_validate_flags_an_already_solved_task(tmp_path: Path) -> None:
    task_dir = copy_task(tmp_path)
    calc = task_dir / "repo" / "calc.py"
    calc.write_text(calc.read_text().replace("return a - b", "return a + b"), encoding="utf-8")
    (task,) = load_suite(str(task_dir.parent)).tasks
    result = validate_task(task, LIMITS)
    assert not result.ok and result.before.resolved
    assert any("before any fix" in p for p in result.problems)


@pytest.mark.slow
def test_a_test_that_kills_its_process_fails_it_and_those_after(tmp_path: Path) -> None:
    """The tests run in a child of the grader's runner: one that exits mid-run is an error
    for that id and for each id it left unrun, and the ids before it keep their results."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "test_exit.py").write_text(
        "import os, unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test_a(self):\n        pass\n\n"
        "    def test_b(self):\n        os._exit(3)\n\n"
        "    def test_c(self):\n        pass\n"
    )
    ids = ("test_exit.T.test_a", "test_exit.T.test_b", "test_exit.T.test_c")
    with Workspace.create(repo) as workspace:
        outcomes, _ = run_test_ids(ids, workspace, LIMITS, 5.0)
    assert [o.status for o in outcomes] == ["pass", "error", "error"]
    assert "exited (code 3) during this test" in outcomes[1].detail
    assert "not run" in outcomes[2].detail and "test_b" in outcomes[2].detail
