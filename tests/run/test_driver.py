"""Adding a workload (docs/architecture.md, "Adding a workload"): a small one defined here,
questions answered in one step each, runs through the one driver into an ordinary run
directory that `edgeagent report` and `check` read, and resumes as every kind of run does."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli
from scripted import ScriptedEngine

from edgeagent.config import load_config
from edgeagent.events import TaskRecord, TaskStarted, step_record
from edgeagent.run import Loaded, RunSession, drive, finished_units, model_label, task_record
from edgeagent.rundir import ResumePlan, plan_resume, read_run


class _Echo(ScriptedEngine):
    def answer(self, call: int, messages: list) -> tuple[str, str]:
        return messages[-1].content.upper(), "stop"


@dataclass(frozen=True)
class _NoTool:
    exit_code: int | None = None
    error: bool = False
    retrieval: Any = None


@dataclass
class QuestionWorkload:
    """Each unit one question, one metered generation, correct when the answer shouts it."""

    questions: dict[str, str]
    suite: str = "questions"
    stop_ends_run: bool = True
    done: list[tuple[str, bool]] = field(default_factory=list)

    def label(self, model: Any) -> str:
        return f"questions-{model_label(model)}"

    def store_config(self, config: Any) -> dict[str, Any]:
        return config.to_dict()

    def provenance(self) -> dict[str, Any]:
        return {"questions": len(self.questions)}

    def unit_ids(self) -> tuple[str, ...]:
        return tuple(self.questions)

    @contextlib.contextmanager
    def running(self, session: RunSession, plan: ResumePlan | None
                ) -> Iterator[dict[str, TaskRecord]]:
        yield finished_units(plan)

    def run_unit(self, session: RunSession, unit: str, attempt: int) -> TaskRecord:
        from edgeagent.engine import Message

        question = self.questions[unit]
        session.emit(TaskStarted(unit, attempt, "question", "", question))
        t0, wall = time.monotonic_ns(), time.time()
        gen = session.engine.generate([Message("user", question)], max_tokens=8)
        session.emit(step_record(
            gen, task_id=unit, attempt=attempt, step=0, wall_start=wall, action_name=None,
            action_args=None, format_error=None, result=_NoTool(), observation="",
            truncated=False, observation_tokens=0, t_tool_start=gen.t_end_ns,
            t_tool_end=gen.t_end_ns))
        session.emit(task_record(
            unit, attempt, session.collector.steps, (time.monotonic_ns() - t0) / 1e6,
            outcome="resolved" if gen.text == question.upper() else "unresolved",
            termination="submitted", grading_output="answer checked"))
        return session.collector.tasks[-1]

    def unit_done(self, unit: str, n: int, record: TaskRecord, fresh: bool) -> None:
        self.done.append((unit, fresh))

    def after_close(self, run_dir: Path) -> None:
        (run_dir / "questions.txt").write_text("\n".join(self.questions) + "\n")


@dataclass(frozen=True)
class _Model:
    name: str = "echo"
    path: Path | None = None
    sha256: str | None = None
    source: str = "test"


def _loaded(tmp_path: Path) -> Loaded:
    config = load_config(None, {"out": str(tmp_path / "runs"), "model": "echo"})
    return Loaded(config, _Model(), _Echo(), "run")


QUESTIONS = {"q1": "what is two", "q2": "and three", "q3": "and four"}


@pytest.mark.slow  # a run directory's meter reads the host
def test_a_workload_defined_here_runs_through_the_driver(tmp_path: Path) -> None:
    workload = QuestionWorkload(QUESTIONS)
    session = drive(workload, _loaded(tmp_path))
    assert session.status == "complete"
    assert session.run_dir.name.endswith("-questions-echo")
    stored = read_run(session.run_dir)
    assert [t["task_id"] for t in stored.tasks] == ["q1", "q2", "q3"]
    assert {t["outcome"] for t in stored.tasks} == {"resolved"}
    assert len(stored.steps) == 3 and stored.run["suite"] == "questions"
    assert (session.run_dir / "questions.txt").is_file()  # after_close ran
    code, out, _ = run_cli("report", str(session.run_dir))
    assert code == 0 and "3/3" in out


@pytest.mark.slow
def test_a_stopped_workload_resumes_with_the_units_it_finished_kept(tmp_path: Path) -> None:
    first = QuestionWorkload(QUESTIONS)
    session = drive(first, _loaded(tmp_path), stop_requested=lambda: len(first.done) >= 1)
    assert session.status == "interrupted"
    assert [t["task_id"] for t in read_run(session.run_dir).tasks] == ["q1"]
    again = QuestionWorkload(QUESTIONS)
    resumed = drive(again, _loaded(tmp_path), plan=plan_resume(session.run_dir))
    assert resumed.run_dir == session.run_dir and resumed.status == "complete"
    assert again.done == [("q1", False), ("q2", True), ("q3", True)]
    assert [t["task_id"] for t in read_run(session.run_dir).tasks] == ["q1", "q2", "q3"]
