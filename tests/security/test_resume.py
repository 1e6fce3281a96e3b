"""Crash-safe resume: `edgeagent run` on the tiny model is SIGKILLed at random points, over and
over; after every kill the store must be readable with no committed step lost, and
`edgeagent run --resume` must finish the run with exactly one record per step."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from kill_loop import KillLoop, committed_steps
from scripted import ScriptedEngine

from edgeagent import cli
from edgeagent.rundir import open_run_db

EDGEAGENT = Path(sys.executable).with_name("edgeagent")
KILLS = 35
BUDGET_S = 160.0
RUN_ARGS = ("--max-steps", "6", "--max-new-tokens", "16", "--n-ctx", "2048", "--threads", "1")


def _trajectory_steps(run_dir: Path, final: bool) -> list[tuple[str, int, int]]:
    seen = []
    for path in sorted((run_dir / "trajectories").glob("*.jsonl")):
        lines = path.read_bytes().split(b"\n")
        if not final and lines[-1]:
            lines = lines[:-1]  # a line cut short by the kill; resume drops it
        for line in lines:
            if line:
                rec = json.loads(line)
                if rec["type"] == "step":
                    seen.append((rec["task_id"], rec["attempt"], rec["step"]))
    return seen


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume(
    tiny_model_path: Path, tmp_path: Path, reliability
) -> None:
    config = tmp_path / "long.yaml"
    config.write_text("max_format_errors: 1000\n")
    out = tmp_path / "runs"
    loop = KillLoop(
        new=[str(EDGEAGENT), "run", "--config", str(config), "--model", str(tiny_model_path),
             "--suite", "smoke", "--out", str(out), *RUN_ARGS],
        resume=lambda d: [str(EDGEAGENT), "run", "--resume", str(d), "--threads", "1"],
        out=out, cwd=tmp_path, wait_s=(0.3, 4.0))
    loop.run(kills=KILLS, budget_s=BUDGET_S)
    for run_dir in loop.committed:
        _trajectory_steps(run_dir, final=False)  # every complete line parses
    loop.finish_all(timeout_s=60)
    superseded_total = 0
    for run_dir in loop.committed:  # every interrupted run finished: check it end to end
        steps = committed_steps(run_dir)
        assert steps is not None
        db = open_run_db(run_dir)
        try:
            assert db.execute("SELECT status FROM runs").fetchone()[0] == "complete"
            tasks = db.execute("SELECT task_id, attempt, steps, termination FROM tasks").fetchall()
            superseded = {(r[0], r[1]) for r in db.execute(
                "SELECT task_id, attempt FROM superseded")}
        finally:
            db.close()
        final = [t for t in tasks if t["termination"] != "interrupted"]
        assert sorted(t["task_id"] for t in final) == ["fix-add", "fix-shout", "fix-sum-to"]
        for t in final:  # the kept attempt has exactly its steps, numbered 0..n-1
            mine = sorted(s for (task, att, s) in steps if (task, att) == (t[0], t[1]))
            assert mine == list(range(t["steps"]))
        for task, att, _ in steps:  # every other attempt is listed as superseded
            assert (task, att) in {(t[0], t[1]) for t in final} or (task, att) in superseded
        superseded_total += len(superseded)
        lines = _trajectory_steps(run_dir, final=True)
        assert len(lines) == len(set(lines)), "a step was written twice"
        assert set(lines) <= steps
    assert loop.kills >= 5, f"only {loop.kills} kill points in {BUDGET_S} s"
    assert loop.lost == 0
    reliability("resume", kill_points=loop.kills, runs=len(loop.committed), steps_lost=0,
                attempts_superseded=superseded_total,
                steps_committed=sum(len(s) for s in loop.committed.values()))
    reliability("kill_points", run=loop.kills)


class _ListingEngine(ScriptedEngine):
    """Scripted: list_dir, list_dir, submit, for every task."""

    def answer(self, call: int, messages) -> tuple[str, str]:
        turns = sum(1 for m in messages if m.role == "assistant")
        name = "submit" if turns >= 2 else "list_dir"
        return json.dumps({"name": name, "arguments": {}}), "stop"


@pytest.mark.slow
def test_ctrl_c_then_resume_keeps_one_record_per_task(
    tiny_model_path: Path, tmp_path: Path, reliability
) -> None:
    from edgeagent.config import load_config
    from edgeagent.results.report import render_report
    from edgeagent.run import execute_run

    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "draft_first": False})
    engine = _ListingEngine()
    # Ctrl-C arrives during the second task's first step
    first = execute_run(config, engine_factory=lambda p, c: engine, progress=False,
                        stop_requested=lambda: engine.calls >= 5)
    assert first.status == "interrupted"
    before = committed_steps(first.run_dir)
    engine2 = _ListingEngine()
    second = execute_run(config, engine_factory=lambda p, c: engine2, progress=False,
                         resume_dir=first.run_dir)
    assert second.status == "complete" and second.run_dir == first.run_dir
    after = committed_steps(first.run_dir)
    assert before is not None and after is not None and before <= after
    db = open_run_db(first.run_dir)
    try:
        superseded = db.execute("SELECT task_id, attempt, steps FROM superseded").fetchall()
        kept = db.execute("SELECT task_id, attempt FROM tasks WHERE termination != "
                          "'interrupted' ORDER BY task_id").fetchall()
    finally:
        db.close()
    assert [tuple(r) for r in superseded] == [("fix-shout", 0, 2)]
    assert [tuple(r) for r in kept] == [("fix-add", 0), ("fix-shout", 1), ("fix-sum-to", 0)]
    report = render_report(first.run_dir)
    assert "interrupted" not in report and "[complete]" in report
    reliability("resume", interrupt_resumes=1, steps_lost=len(before - after))


@pytest.mark.slow
def test_a_run_from_before_a_task_column_resumes(tiny_model_path: Path, tmp_path: Path) -> None:
    """A run directory written before `termination_detail` existed (the column dropped
    here) resumes: its kept records are read, the column is added, and the tasks run after
    the resume store their detail."""
    from edgeagent.config import load_config
    from edgeagent.results.report import render_report
    from edgeagent.run import execute_run

    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "max_steps": 2})
    engine = _ListingEngine()
    first = execute_run(config, engine_factory=lambda p, c: engine, progress=False,
                        stop_requested=lambda: engine.calls >= 3)
    db = sqlite3.connect(first.run_dir / "run.db")
    db.execute("ALTER TABLE tasks DROP COLUMN termination_detail")
    db.commit()
    db.close()
    second = execute_run(config, engine_factory=lambda p, c: _ListingEngine(), progress=False,
                         resume_dir=first.run_dir)
    assert second.status == "complete"
    db = open_run_db(first.run_dir)
    try:
        rows = db.execute("SELECT task_id, termination, termination_detail FROM tasks"
                          " WHERE termination != 'interrupted' ORDER BY task_id").fetchall()
    finally:
        db.close()
    # fix-add finished before the resume (no detail then); the other two ran after it
    assert [tuple(r) for r in rows] == [("fix-add", "max_steps", None),
                                        ("fix-shout", "max_steps", "the step limit, 2 steps"),
                                        ("fix-sum-to", "max_steps", "the step limit, 2 steps")]
    report = render_report(first.run_dir)
    assert "[complete]" in report and "fix-sum-to     max_steps: the step limit" in report


@pytest.mark.slow
def test_a_resumed_run_counts_only_the_attempts_it_kept(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The task table and the metrics agree after a resume: the superseded attempt's task
    record and steps stay in run.db but are counted in neither."""
    from edgeagent.config import load_config
    from edgeagent.run import execute_run

    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "draft_first": False})
    engine = _ListingEngine()
    first = execute_run(config, engine_factory=lambda p, c: engine, progress=False,
                        stop_requested=lambda: engine.calls >= 5)
    engine2 = _ListingEngine()
    execute_run(config, engine_factory=lambda p, c: engine2, progress=False,
                resume_dir=first.run_dir)
    assert cli.main(["report", str(first.run_dir), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    metrics = doc["metrics"]
    assert sorted((t["task_id"], t["attempt"]) for t in doc["tasks"]) == [
        ("fix-add", 0), ("fix-shout", 1), ("fix-sum-to", 0)]
    assert metrics["tasks_attempted"]["value"] == 3
    assert len(doc["steps"]) == sum(t["steps"] for t in doc["tasks"]) == 9
    assert metrics["trajectory_p50"]["n"] == 3 and metrics["ttft_p50"]["n"] == 9
    assert cli.main(["report", str(first.run_dir)]) == 0
    assert "resolved 0/3 (0.0%)" in capsys.readouterr().out


def test_resume_refuses_a_bad_run_dir_or_changed_settings(
    tmp_path: Path, tiny_model_path: Path, reliability
) -> None:
    from edgeagent import cli

    (tmp_path / "empty").mkdir()
    cases = [
        (["run", "--resume", str(tmp_path / "missing")], "config.yaml"),
        (["run", "--resume", str(tmp_path / "empty")], "config.yaml"),
    ]
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(f"model: {tiny_model_path}\n")
    cases += [
        (["run", "--resume", str(run_dir), "--max-steps", "3"], "--max-steps"),
        (["run", "--resume", str(run_dir)], "run.db"),
    ]
    import contextlib
    import io

    for argv, needle in cases:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli.main(argv)
        reliability("bad_input", tried=1)
        text = err.getvalue()
        assert code == 2 and "Traceback" not in text and needle in text, (argv, text)
        assert len(text.strip().splitlines()) == 1
        reliability("bad_input", clear_error=1)
