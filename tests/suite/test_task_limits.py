"""One rule for a task's process limits, wherever its commands run (a live run, grading, a
replay re-executing tools, an oracle): the run's timeout before the task's before the
default, and the suite, the run directories and the model files hidden from every command."""

from __future__ import annotations

from pathlib import Path

from edgeagent.models import models_dir
from edgeagent.sandbox import DEFAULT_COMMAND_TIMEOUT_S
from edgeagent.suite import load_suite, task_limits


def test_every_command_of_a_task_is_kept_from_the_suite_runs_and_models(
        tmp_path: Path) -> None:
    task = load_suite("smoke").tasks[0]
    model = tmp_path / "weights" / "m.gguf"
    limits = task_limits(task, out=tmp_path / "runs", model=model)
    assert str(task.dir.parent) in limits.hide  # hidden tests and oracles
    assert str(models_dir()) in limits.hide
    assert str(tmp_path / "runs") in limits.hide
    assert str(model.parent) in limits.hide


def test_the_timeout_is_the_runs_then_the_tasks_then_the_default() -> None:
    task = load_suite("smoke").tasks[0]
    assert task_limits(task, command_timeout_s=7.0).timeout_s == 7.0
    assert task_limits(task).timeout_s == (task.limits.command_timeout_s
                                           or DEFAULT_COMMAND_TIMEOUT_S)


def test_a_registry_model_name_hides_no_directory_of_its_own() -> None:
    task = load_suite("smoke").tasks[0]
    limits = task_limits(task, model="qwen2.5-coder-0.5b-instruct-q4_k_m")
    assert len(limits.hide) == 2  # the suite and the models folder
