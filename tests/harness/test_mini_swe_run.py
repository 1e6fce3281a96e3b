"""`edgeagent run --agent mini-swe-agent`: the real mini-swe-agent over a smoke task, its model
our endpoint (every request a step), its commands in our sandbox, the task graded.

First with the tiny random-weight model through the command line (it writes noise: the agent
ends on format errors, and the run still records and grades it), then with a scripted model
that fixes the bug and also tries to write outside the workspace.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from scripted import ScriptedEngine

from edgeagent import cli
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.harness.mini_swe import mini_swe_available
from edgeagent.run import execute_run
from edgeagent.rundir import open_run_db

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "tasks" / "smoke"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(mini_swe_available() is not None,
                                reason=str(mini_swe_available()))]


def _rows(run_dir: Path, table: str) -> list[dict]:
    db = open_run_db(run_dir)
    try:
        return [dict(r) for r in db.execute(f"SELECT * FROM {table}")]
    finally:
        db.close()


def test_real_mini_swe_agent_on_the_tiny_model(tiny_model_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    code = cli.main(["run", "--agent", "mini-swe-agent", "--model", str(tiny_model_path),
                     "--task", "fix-add", "--headless", "--threads", "1", "--n-ctx", "4096",
                     "--max-steps", "4", "--wall-s", "120", "--out", str(out)])
    (run_dir,) = out.iterdir()
    (task,) = _rows(run_dir, "tasks")
    steps = _rows(run_dir, "steps")
    assert code in (0, 1)  # a verdict, not a crash
    assert task["outcome"] == "unresolved" and task["grading_output"].strip()
    assert task["termination"] in ("format_errors", "max_steps", "agent_error")
    assert 1 <= len(steps) == task["steps"] <= 4
    assert all(s["context_tokens"] > 0 and s["decoded_tokens"] > 0 for s in steps)
    assert (run_dir / "agents" / "fix-add-0.traj.json").exists()


class MiniSweModel(ScriptedEngine):
    """Answers as mini-swe-agent's default.yaml asks: a THOUGHT and one bash block."""

    def __init__(self, outside: Path) -> None:
        super().__init__()
        self.outside = outside

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        commands = [f"sed -i 's/a - b/a + b/' calc.py && echo escaped > {self.outside}",
                    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
        command = commands[min(call, 1)]
        return f"THOUGHT: step {call}.\n\n```mswea_bash_command\n{command}\n```", "stop"


def test_mini_swe_agent_fixes_a_task_confined(tiny_model_path: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    outside = Path("/tmp") / f"edgeagent-msa-escape-{uuid.uuid4().hex}"
    monkeypatch.chdir(tmp_path)  # a relative --out, as a user types it
    config = load_config(None, {"model": str(tiny_model_path), "out": "runs",
                                "suite": str(SMOKE), "tasks": ["fix-add"],
                                "agent": "mini-swe-agent", "wall_s": 120.0})
    result = execute_run(config, engine_factory=lambda p, s: MiniSweModel(outside),
                         progress=False)
    (task,) = result.tasks
    assert task.outcome == "resolved", task.grading_output
    assert task.termination == "submitted" and task.steps == 2
    assert not outside.exists()  # the sed ran; the write outside the workspace did not land
    steps = _rows(result.run_dir, "steps")
    assert [s["context_tokens"] for s in steps] == [300, 300]
    assert steps[0]["tool_ms"] > 0  # the command ran in the agent's own time
