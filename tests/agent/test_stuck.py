"""The stuck rule through the real runner (sandbox, store) with a scripted engine: a task
ends as `stuck` when N-1 steps in a row repeated calls already made with the same outcomes
(N identical calls, or a cycle of any length come round), not before; a new call or a new
outcome starts the count again; 0 disables the rule, and the report then says what the rule
would have saved."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from scripted import ScriptedEngine

from edgeagent.cli import main
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.run import execute_run

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

READ = {"name": "read_file", "arguments": {"path": "calc.py"}}
# the same call each time, but its output grows: same action, different observation
COUNT = {"name": "run", "arguments": {"command": "echo x >> log.txt; wc -l < log.txt"}}
# the same failing call whose output differs each time (a failure is a failure)
COUNT_FAIL = {"name": "run",
              "arguments": {"command": "echo x >> log.txt; wc -l < log.txt; exit 1"}}
EDIT = {"name": "edit", "arguments": {"path": "calc.py", "old": "a - b", "new": "a + b"}}
# an edit whose old text is not in the file: it fails the same way every time
EDIT_MISS = {"name": "edit",
             "arguments": {"path": "calc.py", "old": "no such line", "new": "a + b"}}
SUBMIT = {"name": "submit", "arguments": {}}


class ScriptEngine(ScriptedEngine):
    """Answers each step with the next call of its script (the last one repeats)."""

    def __init__(self, script: list[dict]) -> None:
        super().__init__()
        self.script = script

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        return json.dumps(self.script[min(call, len(self.script) - 1)]), "stop"


def _run(tmp_path: Path, model: Path, script: list[dict], **config) -> tuple[dict, list]:
    cfg = load_config(None, {"model": str(model), "out": str(tmp_path / "runs"),
                             "tasks": ["fix-add"], "max_steps": 10, "draft_first": False, **config})
    result = execute_run(cfg, engine_factory=lambda p, c: ScriptEngine(script),
                         progress=False)
    db = sqlite3.connect(result.run_dir / "run.db")
    db.row_factory = sqlite3.Row
    task = dict(db.execute("SELECT * FROM tasks").fetchone())
    repeats = [r["repeats"] for r in db.execute("SELECT repeats FROM steps ORDER BY step")]
    db.close()
    return {**task, "run_dir": result.run_dir}, repeats


def test_identical_calls_end_the_task_at_n_not_before(tiny_model_path: Path,
                                                      tmp_path: Path) -> None:
    task, repeats = _run(tmp_path, tiny_model_path, [READ], stuck_after=3)
    assert task["termination"] == "stuck"
    assert task["steps"] == 3
    assert repeats == [1, 2, 3]


def test_a_different_outcome_resets_the_count(tiny_model_path: Path, tmp_path: Path) -> None:
    task, repeats = _run(tmp_path, tiny_model_path, [COUNT], stuck_after=3, max_steps=6)
    assert task["termination"] == "max_steps"
    assert repeats == [1] * 6


def test_a_different_call_resets_the_count(tiny_model_path: Path, tmp_path: Path) -> None:
    script = [READ, READ, EDIT, READ, READ, SUBMIT]
    task, repeats = _run(tmp_path, tiny_model_path, script, stuck_after=3)
    assert task["termination"] == "submitted"
    assert repeats == [1, 2, 1, 1, 2, 1]


def test_identical_failing_calls_count_whatever_their_output(tiny_model_path: Path,
                                                             tmp_path: Path) -> None:
    task, repeats = _run(tmp_path, tiny_model_path, [COUNT_FAIL], stuck_after=4)
    assert task["termination"] == "stuck"
    assert repeats == [1, 2, 3, 4]


def test_a_two_call_cycle_is_stuck_once_it_comes_round(tiny_model_path: Path,
                                                        tmp_path: Path) -> None:
    # read, failing edit, read, failing edit, ...: no call repeats the one before it
    task, repeats = _run(tmp_path, tiny_model_path, [READ, EDIT_MISS] * 5, stuck_after=3)
    assert task["termination"] == "stuck"
    assert task["steps"] == 4
    assert repeats == [1, 1, 2, 3]


def test_a_long_cycle_is_stuck_too(tiny_model_path: Path, tmp_path: Path) -> None:
    # five different commands, then the same five again: each known by its second round
    echo = [{"name": "run", "arguments": {"command": f"echo {k}"}} for k in range(5)]
    task, repeats = _run(tmp_path, tiny_model_path, echo * 3, stuck_after=3, max_steps=12)
    assert task["termination"] == "stuck"
    assert repeats == [1, 1, 1, 1, 1, 2, 3]


def test_a_cycle_whose_outcome_changes_is_not_stuck(tiny_model_path: Path,
                                                    tmp_path: Path) -> None:
    # the read's output is the same each time, but COUNT's grows: every other step is new
    task, repeats = _run(tmp_path, tiny_model_path, [READ, COUNT] * 5, stuck_after=3,
                         max_steps=8)
    assert task["termination"] == "max_steps"
    assert repeats == [1, 1, 2, 1, 2, 1, 2, 1]


def test_zero_disables_the_rule_and_the_report_counts_what_it_would_save(
    tiny_model_path: Path, tmp_path: Path, capsys
) -> None:
    task, repeats = _run(tmp_path, tiny_model_path, [READ], stuck_after=0, max_steps=7)
    assert task["termination"] == "max_steps"
    assert repeats == [1, 2, 3, 4, 5, 6, 7]
    assert main(["report", str(task["run_dir"]), "--format", "json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    # the default N is 4: steps 5, 6 and 7 came after the stuck point (the 4th identical call)
    assert metrics["stuck_excess_steps"]["value"] == 3
    assert metrics["stuck_excess_s"]["value"] > 0
    assert metrics["tasks_stuck"]["value"] == 0
    assert main(["report", str(task["run_dir"])]) == 0
    assert "would have saved" in capsys.readouterr().out


def test_stuck_is_reported_by_report_and_check(tiny_model_path: Path, tmp_path: Path,
                                               capsys) -> None:
    task, _ = _run(tmp_path, tiny_model_path, [READ], stuck_after=2)
    run_dir = str(task["run_dir"])
    assert main(["report", run_dir]) == 0
    out = capsys.readouterr().out
    assert "stuck" in out.split("fix-add", 1)[1].splitlines()[0]  # the task's row
    assert "1 tasks ended by the stuck rule" in out
    # the rule's reason is stored with the task, so the report says why, not only that
    why = out.split("why tasks ended:", 1)[1].splitlines()[1]
    assert why.split() [:2] == ["fix-add", "stuck:"]
    assert "repeated a call already made, with the same outcome" in why
    assert main(["report", run_dir, "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["tasks"]
    assert row["termination_detail"] == task["termination_detail"] != None  # noqa: E711
    main(["check", run_dir])
    assert "terminations: stuck 1" in capsys.readouterr().out


def test_stuck_after_flag_and_config_key(tiny_model_path: Path, tmp_path: Path) -> None:
    import yaml

    from edgeagent.errors import ConfigError

    main(["run", "--model", str(tiny_model_path), "--task", "fix-add", "--out",
          str(tmp_path / "runs"), "--max-steps", "1", "--max-new-tokens", "8", "--n-ctx",
          "2048", "--threads", "1", "--stuck-after", "0", "--headless"])
    run_dir = next((tmp_path / "runs").iterdir())
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["stuck_after"] == 0
    (tmp_path / "c.yaml").write_text("stuck_after: -1\n")
    try:
        load_config(tmp_path / "c.yaml")
    except ConfigError as exc:
        assert "stuck_after" in str(exc) and "c.yaml:1" in str(exc)
    else:
        raise AssertionError("a negative stuck_after was accepted")
