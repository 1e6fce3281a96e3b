"""RunSession's one way to end a run: the status, the failure reason, the task cut short,
RunFinished's sinks, the engine closed, `after_close`. No model: an empty power root and a
stand-in engine."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from edgeagent.config import load_config
from edgeagent.events import RunFinished, RunStarted, TaskRecord
from edgeagent.run import RunSession, ended_status


class Engine:
    closed = 0

    def close(self) -> None:
        self.closed += 1


class Printer:
    def __init__(self, fail_on_finish: bool = False) -> None:
        self.events: list[object] = []
        self.fail_on_finish = fail_on_finish

    def emit(self, event: object) -> None:
        self.events.append(event)
        if self.fail_on_finish and isinstance(event, RunFinished):
            raise OSError("the printer went away")


def open_session(tmp_path: Path, engine: Engine, printer: Printer, **kw) -> RunSession:
    (tmp_path / "sysfs").mkdir(exist_ok=True)
    config = load_config(None, {"out": str(tmp_path), "power_root": str(tmp_path / "sysfs")})
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    return RunSession.open(config, run_dir, config.to_dict(), engine, [printer], **kw)


def started(session: RunSession) -> None:
    session.emit(RunStarted(session.run_dir.name, str(session.run_dir), "s", ("t1", "t2"), {}))


def run_row(run_dir: Path) -> tuple[str, str | None, list[tuple[str, str]]]:
    db = sqlite3.connect(run_dir / "run.db")
    try:
        status, why = db.execute("SELECT status, failure_reason FROM runs").fetchone()
        tasks = db.execute("SELECT task_id, termination FROM tasks").fetchall()
    finally:
        db.close()
    return status, why, tasks


@pytest.mark.slow
def test_a_finished_block_is_complete_and_closes_the_engine(tmp_path: Path) -> None:
    engine, printer = Engine(), Printer()
    with open_session(tmp_path, engine, printer) as session:
        started(session)
        with session.unit("t1", 0):
            pass
    assert session.status == "complete" and engine.closed == 1
    assert run_row(session.run_dir) == ("complete", None, [])
    assert isinstance(printer.events[-1], RunFinished)


@pytest.mark.slow
def test_a_stop_asked_for_is_interrupted(tmp_path: Path) -> None:
    with open_session(tmp_path, Engine(), Printer(), stop_requested=lambda: True) as session:
        started(session)
    assert run_row(session.run_dir)[:2] == ("interrupted", None)


@pytest.mark.slow
def test_a_second_ctrl_c_is_interrupted_and_cuts_the_task_short(tmp_path: Path) -> None:
    engine, printer = Engine(), Printer()
    with pytest.raises(KeyboardInterrupt):
        with open_session(tmp_path, engine, printer) as session:
            started(session)
            with session.unit("t2", 1):
                raise KeyboardInterrupt
    assert run_row(session.run_dir) == ("interrupted", None, [("t2", "interrupted")])
    assert engine.closed == 1
    assert isinstance(printer.events[-1], RunFinished)  # no failure: every sink hears it


@pytest.mark.slow
def test_an_exception_fails_the_run_with_its_reason_in_the_store_alone(tmp_path: Path) -> None:
    printer = Printer()
    with pytest.raises(ValueError):
        with open_session(tmp_path, Engine(), printer) as session:
            started(session)
            with session.unit("t1", 0):
                raise ValueError("bad input")
    status, why, tasks = run_row(session.run_dir)
    assert (status, why, tasks) == ("failed", "ValueError: bad input", [("t1", "interrupted")])
    assert not any(isinstance(e, RunFinished) for e in printer.events)


@pytest.mark.slow
def test_a_failure_outside_any_unit_records_its_reason_and_no_task(tmp_path: Path) -> None:
    # a replay fails between conversations the same way a live run fails between tasks
    printer = Printer()
    with pytest.raises(ValueError):
        with open_session(tmp_path, Engine(), printer) as session:
            started(session)
            raise ValueError("bad input")
    assert run_row(session.run_dir) == ("failed", "ValueError: bad input", [])
    assert not any(isinstance(e, RunFinished) for e in printer.events)


@pytest.mark.slow
def test_a_unit_that_ended_is_not_cut_short(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        with open_session(tmp_path, Engine(), Printer()) as session:
            started(session)
            with session.unit("t1", 0):
                session.records.append(_record("t1"))
            raise ValueError("after the task")
    assert run_row(session.run_dir)[2] == []  # the record above went to no sink


@pytest.mark.slow
def test_after_close_runs_once_closed_but_not_when_closing_failed(tmp_path: Path) -> None:
    calls: list[str] = []
    (tmp_path / "a").mkdir()
    with pytest.raises(ValueError):
        with open_session(tmp_path / "a", Engine(), Printer(),
                          after_close=lambda: calls.append("a")) as session:
            started(session)
            raise ValueError("x")
    assert calls == ["a"]
    (tmp_path / "b").mkdir()
    engine = Engine()
    with pytest.raises(OSError):
        with open_session(tmp_path / "b", engine, Printer(fail_on_finish=True),
                          after_close=lambda: calls.append("b")) as session:
            started(session)
    assert calls == ["a"] and engine.closed == 1  # closed even so; nothing made from it


def test_ended_status() -> None:
    assert ended_status(None, False) == "complete"
    assert ended_status(None, True) == "interrupted"
    assert ended_status(KeyboardInterrupt(), False) == "interrupted"
    assert ended_status(RuntimeError(), False) == "failed"
    assert ended_status(SystemExit(1), False) == "failed"


def _record(task_id: str) -> TaskRecord:
    return TaskRecord(task_id=task_id, attempt=0, outcome="resolved", termination="submitted",
                      steps=0, wall_ms=0.0, context_tokens_final=0, prefill_tokens=0,
                      decoded_tokens=0, reused_tokens=0, prefill_ms=0.0, decode_ms=0.0,
                      tool_ms=0.0, format_errors=0, energy_j=None, energy_null_reason="none",
                      grading_output="")
