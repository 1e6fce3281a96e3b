"""RunStore: WAL, one commit per step, and a run directory that survives a killed process."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from paths import TESTS

from edgeagent import cli
from edgeagent.errors import StoreError
from edgeagent.events import PhaseEnergy, RunStarted, StepRecord, TaskStarted
from edgeagent.rundir import RunStore, open_run_db

TASK = "fix-add"
N_STEPS = 5


def make_step(i: int, task_id: str = TASK) -> StepRecord:
    """A StepRecord with every field set, distinct per step; odd steps are format errors."""
    t0 = 1_000_000_000 * (i + 1)
    is_action = i % 2 == 0
    return StepRecord(
        task_id=task_id,
        attempt=0,
        step=i,
        t_start_ns=t0,
        t_first_token_ns=t0 + 10_000_000,
        t_decode_end_ns=t0 + 30_000_000,
        t_tool_start_ns=t0 + 31_000_000,
        t_tool_end_ns=t0 + 50_000_000,
        wall_start=1_700_000_000.25 + i,
        context_tokens=900 + 100 * i,
        reused_tokens=0 if i == 0 else 890 + 100 * (i - 1),
        prefill_tokens=900 if i == 0 else 900 + 100 * i - (890 + 100 * (i - 1)),
        decoded_tokens=20 + i,
        prefill_ms=10.5 + i,
        ttft_ms=11.25 + i,
        decode_ms=20.125 + i,
        tpot_ms=1.0625 + i,
        sample_ms=0.5 + i,
        kv_cache_bytes=256 * (920 + 101 * i),
        spec_drafted=i,
        spec_accepted=i // 2,
        action_name="read_file" if is_action else None,
        action_args={"path": f"calc{i}.py", "start": i} if is_action else None,
        format_error=None if is_action else f"no JSON object was found ({i})",
        raw_output=f'{{"name": "read_file", "arguments": {{"path": "calc{i}.py"}}}}',
        observation=f"Result of read_file:\n{i}: def add(a, b):",
        tool_exit_code=0 if is_action else None,
        tool_ms=19.0 + i,
        tool_error=not is_action,
        observation_tokens=30 + i,
        observation_truncated=i == 3,
        per_token_ms=tuple(0.5 * k for k in range(1, 20 + i)),
        retrieval_embed_ms=None,
        retrieval_search_ms=1.5 * i,
        retrieval_rerank_ms=None,
        energy_prefill=PhaseEnergy(0.75 * (i + 1), "rapl", "package", None),
        energy_decode=PhaseEnergy(None),
        energy_tool=PhaseEnergy(None, null_reason="gap in samples"),
        cpu_percent=95.5 + i,
        rss_bytes=100_000_000 + i,
        max_temp_c=None if i == 0 else 50.0 + i,
    )


# The simulated crash: a separate process writes the run and dies by SIGKILL mid-run,
# without closing the store or finishing the run.
_CRASH_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path

    sys.path[:0] = [{here!r}, {tests_dir!r}]  # this file's folder, and tests/ (paths.py)
    from test_store import N_STEPS, TASK, make_step
    from edgeagent.events import RunStarted, TaskStarted
    from edgeagent.rundir import RunStore

    run_dir = Path(sys.argv[1])
    store = RunStore(run_dir, {{"model": "tiny", "max_steps": 9}})
    store.emit(RunStarted("crash-run", str(run_dir), "smoke", (TASK, "fix-shout"),
                          {{"model": {{"name": "tiny"}}, "device": {{"cpu_model": "test"}}}}))
    store.emit(TaskStarted(TASK, 0, "add() subtracts", "system prompt", "task prompt"))
    for i in range(N_STEPS):
        store.emit(make_step(i))
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


@pytest.fixture(scope="module")
def crashed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("crash")
    script = tmp / "crash.py"
    script.write_text(_CRASH_SCRIPT.format(here=str(Path(__file__).parent), tests_dir=str(TESTS)))
    run_dir = tmp / "run"
    proc = subprocess.run(
        [sys.executable, str(script), str(run_dir)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == -9, proc.stderr  # killed, not a clean exit
    return run_dir


@pytest.mark.slow
def test_crashed_run_keeps_every_step_with_its_values(crashed_run: Path) -> None:
    db = open_run_db(crashed_run)
    try:
        rows = db.execute("SELECT * FROM steps ORDER BY step").fetchall()
    finally:
        db.close()

    assert [r["step"] for r in rows] == list(range(N_STEPS))
    for row in rows:
        expected = make_step(row["step"])
        values = dict(row)
        compared = 0
        for name, value in dataclasses.asdict(expected).items():
            if name in values:
                assert values[name] == value, name
                compared += 1
        assert compared >= 30  # every scalar field has a column of its own name
        assert json.loads(values["action_args_json"] or "null") == expected.action_args
        assert values["energy_prefill_j"] == expected.energy_prefill.joules
        assert values["energy_prefill_source"] == "rapl"
        assert values["energy_prefill_scope"] == "package"
        assert values["energy_prefill_null_reason"] is None
        assert values["energy_decode_j"] is None
        assert values["energy_decode_null_reason"] == "no power source found"
        assert values["energy_tool_null_reason"] == "gap in samples"


@pytest.mark.slow
def test_crashed_run_status_stays_running(crashed_run: Path) -> None:
    db = open_run_db(crashed_run)
    try:
        run = db.execute("SELECT * FROM runs").fetchone()
        n_tasks = db.execute("SELECT count(*) FROM tasks").fetchone()[0]
    finally:
        db.close()
    assert run["run_id"] == "crash-run"
    assert run["status"] == "running"
    assert run["finished_wall"] is None
    assert json.loads(run["task_ids_json"]) == [TASK, "fix-shout"]
    assert n_tasks == 0
    assert json.loads((crashed_run / "provenance.json").read_text())["model"]["name"] == "tiny"


@pytest.mark.slow
def test_crashed_run_trajectory_has_every_line(crashed_run: Path) -> None:
    lines = (crashed_run / "trajectories" / f"{TASK}.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]

    assert [r["type"] for r in records] == ["task_started"] + ["step"] * N_STEPS
    assert records[0]["system_prompt"] == "system prompt"
    for i, record in enumerate(records[1:]):
        expected = make_step(i)
        assert record["step"] == i
        # the trajectory holds what run.db leaves out: observations and per-token times
        assert record["observation"] == expected.observation
        assert record["per_token_ms"] == list(expected.per_token_ms)
        assert record["action_args"] == expected.action_args
        assert record["energy_prefill"]["joules"] == expected.energy_prefill.joules


@pytest.mark.slow
def test_report_on_a_crashed_run_says_it_is_incomplete(
    crashed_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["report", str(crashed_run)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "crash-run" in captured.out
    assert "incomplete" in captured.out
    task_line = next(line for line in captured.out.splitlines() if line.startswith(TASK))
    assert "unfinished" in task_line and str(N_STEPS) in task_line
    assert "format errors: 2" in captured.out  # steps 1 and 3


def test_run_db_is_in_wal_mode_with_one_schema_version(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run", {"model": "tiny"})
    store.close()
    db = open_run_db(tmp_path / "run")
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
        assert [tuple(r) for r in db.execute("SELECT version FROM schema_version")] == [(1,)]
    finally:
        db.close()
    assert (tmp_path / "run" / "trajectories").is_dir()
    assert (tmp_path / "run" / "config.yaml").read_text().strip() == "model: tiny"


def test_each_step_is_committed_as_it_is_emitted(tmp_path: Path) -> None:
    """Readers (a crash, or another process) see step i before step i+1 is produced."""
    store = RunStore(tmp_path / "run", {})
    try:
        store.emit(RunStarted("r", str(tmp_path / "run"), "smoke", (TASK,), {}))
        store.emit(TaskStarted(TASK, 0, "t", "s", "u"))
        for i in range(3):
            store.emit(make_step(i))
            reader = open_run_db(tmp_path / "run")
            try:
                count = reader.execute("SELECT count(*) FROM steps").fetchone()[0]
            finally:
                reader.close()
            assert count == i + 1
    finally:
        store.close()


def test_open_run_db_without_run_db_names_the_directory(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no run.db") as info:
        open_run_db(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_open_run_db_on_a_non_database_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "run.db").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot read"):
        open_run_db(tmp_path)
