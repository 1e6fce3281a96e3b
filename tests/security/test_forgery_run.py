"""A whole `edgeagent run` against a scripted hostile agent (issue 19).

The engine plays every forgery and every read of the answers from integrity_cases.py, then
floods the disk, plants a FIFO for write_file, greps with a catastrophic regex and leaves a
1,500-deep tree for cleanup, and submits; in both tasks of a two-task suite. The run must
complete with every task unresolved, every attempt recorded as a step with its observation,
no answer in any observation, and no workspace left behind. A second run shows a sandbox
fault ending its task with a recorded termination while the run goes on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from integrity_cases import FORGERIES, SECRETS, answer_reads, make_suite
from scripted import ScriptedEngine

from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.run import execute_run
from edgeagent.rundir import open_run_db
from edgeagent.sandbox.tools import Toolbox
from edgeagent.sandbox.workspace import Workspace

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow


def _script(suite: Path, out: Path) -> list[dict]:
    calls = [c for forgery in FORGERIES.values() for c in forgery]
    calls += list(answer_reads(suite, out).values())
    calls += [
        ("run", {"command": "for i in $(seq 16); do head -c 60M /dev/zero > big$i; done"}),
        ("run", {"command": "rm -f big*; mkfifo pipe"}),
        ("write_file", {"path": "pipe", "content": "blocks forever?"}),
        ("write_file", {"path": "slow.txt", "content": "a" * 40 + "b\n"}),
        ("grep", {"pattern": "(a+)+$", "path": "slow.txt"}),
        ("run", {"command": "python -c \"import os\nfor i in range(1500):\n os.mkdir('d'); "
                            "os.chdir('d')\nopen('f', 'w').close()\"; chmod -R 000 d; echo deep"}),
        ("submit", {}),
    ]
    return [{"name": name, "arguments": args} for name, args in calls]


class HostileEngine(ScriptedEngine):
    n_ctx = 32768
    context_tokens, reused_tokens, decoded_tokens = 600, 590, 8

    def __init__(self, script: list[dict]) -> None:
        super().__init__()
        self.script = script
        self.position = 0

    def provenance(self) -> dict:
        return {"engine": "scripted-hostile-agent"}

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        if len(messages) <= 2:  # a new task: the script starts again
            self.position = 0
        action = self.script[min(self.position, len(self.script) - 1)]
        self.position += 1
        return json.dumps(action), "stop"


def test_hostile_agent_whole_run(
    tiny_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reliability
) -> None:
    made: list[Path] = []
    create = Workspace.create.__func__

    def tracked(cls, *args, **kwargs):
        ws = create(cls, *args, **kwargs)
        made.append(ws.root)
        return ws

    monkeypatch.setattr(Workspace, "create", classmethod(tracked))
    suite = make_suite(tmp_path)
    out = tmp_path / "runs"
    script = _script(suite, out)
    config = load_config(None, {
        "model": str(tiny_model_path), "out": str(out), "suite": str(suite),
        "max_steps": len(script) + 2, "wall_s": 600.0, "command_timeout_s": 3.0,
        "draft_first": False,  # the script is the loop's calls
    })
    result = execute_run(config, engine_factory=lambda p, c: HostileEngine(script),
                         progress=False)
    assert result.status == "complete"
    assert [t.outcome for t in result.tasks] == ["unresolved", "unresolved"]
    assert all(t.termination == "submitted" for t in result.tasks)
    db = open_run_db(result.run_dir)
    try:
        steps = db.execute("SELECT task_id, action_name FROM steps ORDER BY task_id, step")
        by_task: dict[str, list[str]] = {}
        for task_id, action in steps.fetchall():
            by_task.setdefault(task_id, []).append(action)
        tasks = [tuple(r) for r in db.execute("SELECT task_id, outcome FROM tasks")]
    finally:
        db.close()
    assert sorted(tasks) == [("cmd-add", "unresolved"), ("ids-add", "unresolved")]
    for task_id in ("cmd-add", "ids-add"):
        # every attempt is a recorded step, in order
        assert by_task[task_id] == [c["name"] for c in script], task_id
        lines = (result.run_dir / "trajectories" / f"{task_id}.jsonl").read_text().splitlines()
        observations = [json.loads(x).get("observation") or "" for x in lines]
        text = "\n".join(observations)
        for secret in SECRETS:
            assert secret not in text, secret
        assert ("killed: the command wrote more than" in text
                or "limit: the command tried to add more than" in text)
        assert "not a regular file" in text and "grep stopped after" in text
        assert "deep" in text
    assert made and not any(os.path.lexists(p.parent) for p in made), "a workspace outlived it"
    reliability("integrity", run_tasks=len(result.tasks), run_attempts=2 * len(script),
                run_recorded=sum(len(v) for v in by_task.values()),
                run_resolved=sum(t.outcome == "resolved" for t in result.tasks))


def test_sandbox_fault_ends_the_task_not_the_run(
    tiny_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reliability
) -> None:
    suite = make_suite(tmp_path)
    real = Toolbox.repo_files
    faults = []

    def broken(self, *args, **kwargs):
        if not faults:
            faults.append(1)
            raise OSError(5, "Input/output error")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Toolbox, "repo_files", broken)
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "suite": str(suite), "max_steps": 3})
    script = [{"name": "submit", "arguments": {}}]
    result = execute_run(config, engine_factory=lambda p, c: HostileEngine(script),
                         progress=False)
    assert result.status == "complete"
    first, second = result.tasks
    assert first.termination == "sandbox_error" and first.outcome == "error"
    assert "Input/output error" in (first.error or "")
    assert second.termination == "submitted" and second.outcome == "unresolved"
    reliability("integrity", cleanup_tried=1, cleanup_blocked=1)
