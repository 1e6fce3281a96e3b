"""The whole pipeline on the tiny random-weight model, through the command line.

The model's output is noise, so no task is solved; what is checked is everything around it:
the run directory, the per-step accounting of KV reuse, format errors that do not crash the
run, meter columns, the report, JSON events, and Ctrl-C keeping what was recorded.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from edgeagent import cli
from edgeagent.rundir import open_run_db

SMOKE_IDS = ("fix-add", "fix-shout", "fix-sum-to")
EDGEAGENT = Path(sys.executable).with_name("edgeagent")  # the console script of this venv
# One llama.cpp thread: OpenMP workers spin-wait, and two spinning processes on a shared
# 2-core machine stall each other for seconds per step.
THREADS = ("--threads", "1")


@dataclass(frozen=True)
class TinyRun:
    code: int
    out: str
    run_dir: Path
    steps: list[sqlite3.Row]
    tasks: list[sqlite3.Row]
    run: sqlite3.Row


def read_run(run_dir: Path) -> tuple[sqlite3.Row, list[sqlite3.Row], list[sqlite3.Row]]:
    db = open_run_db(run_dir)
    try:
        run = db.execute("SELECT * FROM runs").fetchone()
        tasks = db.execute("SELECT * FROM tasks ORDER BY rowid").fetchall()
        steps = db.execute("SELECT * FROM steps ORDER BY task_id, step").fetchall()
    finally:
        db.close()
    return run, tasks, steps


def trajectory(run_dir: Path, task_id: str) -> list[dict]:
    path = run_dir / "trajectories" / f"{task_id}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def tiny_run(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> TinyRun:
    out_dir = tmp_path_factory.mktemp("runs")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = cli.main([
            "run", "--model", str(tiny_model_path), "--suite", "smoke", "--out", str(out_dir),
            "--max-steps", "3", "--max-new-tokens", "24", "--n-ctx", "2048", *THREADS,
            "--no-draft-first",  # the loop's steps and their cache reuse
        ])  # fmt: skip
    run_dirs = list(out_dir.iterdir())
    assert len(run_dirs) == 1, run_dirs
    run, tasks, steps = read_run(run_dirs[0])
    return TinyRun(code, stdout.getvalue(), run_dirs[0], steps, tasks, run)


def steps_of(run: TinyRun, task_id: str) -> list[sqlite3.Row]:
    return [s for s in run.steps if s["task_id"] == task_id]


@pytest.mark.slow
def test_run_exits_0_with_a_complete_run_directory(tiny_run: TinyRun) -> None:
    assert tiny_run.code == 0
    d = tiny_run.run_dir
    for name in ("run.db", "config.yaml", "provenance.json"):
        assert (d / name).is_file(), name
    assert sorted(p.name for p in (d / "trajectories").iterdir()) == [
        f"{t}.jsonl" for t in SMOKE_IDS
    ]
    assert tiny_run.run["status"] == "complete"
    assert tiny_run.run["finished_wall"] is not None and tiny_run.run["wall_ms"] > 0
    assert json.loads(tiny_run.run["task_ids_json"]) == list(SMOKE_IDS)
    assert f"results: {d}" in tiny_run.out


@pytest.mark.slow
def test_config_and_provenance_record_the_run(tiny_run: TinyRun, tiny_model_path: Path) -> None:
    config = yaml.safe_load((tiny_run.run_dir / "config.yaml").read_text())
    assert config["max_steps"] == 3 and config["max_new_tokens"] == 24
    assert config["n_ctx"] == 2048 and config["model"] == str(tiny_model_path)

    prov = json.loads((tiny_run.run_dir / "provenance.json").read_text())
    assert prov["model"]["sha256"] == hashlib.sha256(tiny_model_path.read_bytes()).hexdigest()
    assert prov["model"]["architecture"] == "llama"
    assert prov["model"]["n_ctx"] == 2048
    assert prov["power_null_reason"] == "no power source found"
    assert prov == json.loads(tiny_run.run["provenance_json"])


@pytest.mark.slow
def test_every_task_is_recorded_unresolved(tiny_run: TinyRun) -> None:
    assert [t["task_id"] for t in tiny_run.tasks] == list(SMOKE_IDS)
    for task in tiny_run.tasks:
        # noise cannot write an `edit` call within 24 tokens, so nothing gets fixed
        assert task["outcome"] == "unresolved"
        assert task["termination"] in ("max_steps", "format_errors", "submitted")
        steps = steps_of(tiny_run, task["task_id"])
        assert task["steps"] == len(steps)
        assert 1 <= len(steps) <= 3
        assert task["prefill_tokens"] == sum(s["prefill_tokens"] for s in steps)
        assert task["decoded_tokens"] == sum(s["decoded_tokens"] for s in steps)
        assert task["reused_tokens"] == sum(s["reused_tokens"] for s in steps)
        assert task["grading_output"]  # the hidden tests ran (or the reason they did not)
        assert task["error"] is None


@pytest.mark.slow
def test_each_step_reuses_the_previous_context(tiny_run: TinyRun) -> None:
    for task_id in SMOKE_IDS:
        steps = steps_of(tiny_run, task_id)
        assert [s["step"] for s in steps] == list(range(len(steps)))
        for prev, step in zip(steps, steps[1:], strict=False):
            assert step["reused_tokens"] > 0
            assert step["prefill_tokens"] == step["context_tokens"] - step["reused_tokens"]
            # the previous prompt stays in the KV cache; only the new turn is prefilled
            assert step["reused_tokens"] >= prev["context_tokens"]
            assert step["context_tokens"] > prev["context_tokens"] + prev["decoded_tokens"] - 1
        assert steps[0]["prefill_tokens"] == steps[0]["context_tokens"] - steps[0]["reused_tokens"]


@pytest.mark.slow
def test_format_errors_are_counted_not_fatal(tiny_run: TinyRun) -> None:
    for step in tiny_run.steps:
        # exactly one of: a parsed action, or a format error
        assert (step["action_name"] is None) != (step["format_error"] is None)
        if step["format_error"] is not None:
            assert step["action_args_json"] is None
            assert step["tool_exit_code"] is None
        assert step["raw_output"] is not None
        assert 1 <= step["decoded_tokens"] <= 25
    for task in tiny_run.tasks:
        steps = steps_of(tiny_run, task["task_id"])
        assert task["format_errors"] == sum(1 for s in steps if s["format_error"] is not None)
    # with the grammar, 24 tokens do not close a string argument: garbage did occur
    assert any(s["format_error"] is not None for s in tiny_run.steps)


@pytest.mark.slow
def test_meter_columns(tiny_run: TinyRun) -> None:
    for step in tiny_run.steps:
        for phase in ("prefill", "decode", "tool"):
            assert step[f"energy_{phase}_j"] is None
            assert step[f"energy_{phase}_null_reason"] == "no power source found"
        assert step["cpu_percent"] is not None and step["cpu_percent"] >= 0
        assert step["rss_bytes"] is not None and step["rss_bytes"] > 0
        assert step["t_start_ns"] <= step["t_first_token_ns"] <= step["t_decode_end_ns"]
        assert step["t_decode_end_ns"] <= step["t_tool_start_ns"] <= step["t_tool_end_ns"]
    for task in tiny_run.tasks:
        assert task["energy_j"] is None and task["energy_null_reason"] == "no power source found"


@pytest.mark.slow
def test_trajectories_match_run_db(tiny_run: TinyRun) -> None:
    for task_id in SMOKE_IDS:
        records = trajectory(tiny_run.run_dir, task_id)
        steps = steps_of(tiny_run, task_id)
        assert [r["type"] for r in records] == (
            ["task_started"] + ["step"] * len(steps) + ["task_finished"]
        )
        assert "Tools:" in records[0]["system_prompt"]
        for record, row in zip(records[1:-1], steps, strict=True):
            assert record["step"] == row["step"]
            assert record["context_tokens"] == row["context_tokens"]
            assert record["raw_output"] == row["raw_output"]
            assert record["observation"]
            assert len(record["per_token_ms"]) == row["decoded_tokens"] - 1
        assert records[-1]["outcome"] == "unresolved"


@pytest.mark.slow
def test_console_prints_a_line_per_step_and_task(tiny_run: TinyRun) -> None:
    lines = tiny_run.out.splitlines()
    assert len([line for line in lines if " step " in line]) == len(tiny_run.steps)
    for task_id in SMOKE_IDS:
        assert any(line.startswith(f"[{task_id}] UNRESOLVED") for line in lines)
    assert "0/3 resolved" in lines[-2]


@pytest.mark.slow
def test_report_summarises_the_run(tiny_run: TinyRun, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["report", str(tiny_run.run_dir)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    assert "[complete]" in out
    for task_id in SMOKE_IDS:
        assert any(line.startswith(task_id) for line in out.splitlines())
    for word in ("prefill", "decode", "tool"):
        assert word in out
    fmt = sum(1 for s in tiny_run.steps if s["format_error"] is not None)
    assert f"format errors: {fmt}" in out
    assert "energy: not measured (no power source found)" in out


@pytest.mark.slow
def test_json_events(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main([
        "run", "--model", str(tiny_model_path), "--suite", "smoke", "--task", "fix-add",
        "--out", str(tmp_path), "--max-steps", "2", "--max-new-tokens", "24",
        "--n-ctx", "2048", "--json", *THREADS,
    ])  # fmt: skip
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    events = [json.loads(line) for line in lines]  # stdout holds JSON lines only
    kinds = [e["event"] for e in events]
    assert kinds[0] == "RunStarted" and kinds[-1] == "RunFinished"
    assert {"RunStarted", "TaskStarted", "StepRecord", "TaskRecord", "RunFinished"} <= set(kinds)
    assert kinds.count("TaskRecord") == 1
    run_dir = Path(events[0]["run_dir"])
    _, _, steps = read_run(run_dir)
    assert kinds.count("StepRecord") == len(steps)
    assert events[-1]["status"] == "complete"


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_keeps_the_recorded_steps(
    tiny_model_path: Path, tmp_path: Path, signum: int, code: int
) -> None:
    # Long enough to be interrupted mid-task: no early stop on format errors, and a context
    # window that does not overflow within the 50 steps.
    config = tmp_path / "long.yaml"
    config.write_text("max_format_errors: 1000\n")
    out = tmp_path / "runs"
    stdout, stderr = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    argv = [
        str(EDGEAGENT), "run", "--config", str(config), "--model", str(tiny_model_path),
        "--suite", "smoke", "--out", str(out), "--max-steps", "50", "--max-new-tokens", "24",
        "--n-ctx", "8192", *THREADS,
    ]  # fmt: skip
    with open(stdout, "w") as so, open(stderr, "w") as se:
        proc = subprocess.Popen(argv, stdout=so, stderr=se, cwd=tmp_path)
        try:
            run_dir = _wait_for_first_step(out, proc, timeout_s=60)
            proc.send_signal(signum)
            exit_code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    assert exit_code == code, stderr.read_text()
    assert "stopping after the current step" in stderr.read_text()
    assert "Traceback" not in stderr.read_text()
    assert f"continue with: edgeagent run --resume {run_dir}" in stderr.read_text()
    run, tasks, steps = read_run(run_dir)
    assert run["status"] == "interrupted"
    assert 1 <= len(steps) < 150
    # every started task has its record, and every recorded step its trajectory line
    started = sorted(p.stem for p in (run_dir / "trajectories").glob("*.jsonl"))
    assert started == sorted(t["task_id"] for t in tasks)
    assert {s["task_id"] for s in steps} <= set(started)
    assert tasks[-1]["termination"] == "interrupted"
    assert all(t["termination"] != "interrupted" for t in tasks[:-1])
    for task_id in started:
        lines = [r for r in trajectory(run_dir, task_id) if r["type"] == "step"]
        assert [r["step"] for r in lines] == [s["step"] for s in steps if s["task_id"] == task_id]
    # the run stopped after the current step instead of going on to the next tasks
    assert len(started) < len(SMOKE_IDS)


@pytest.mark.slow
def test_threads_0_records_the_threads_llama_cpp_used(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([
        "run", "--model", str(tiny_model_path), "--suite", "smoke", "--task", "fix-add",
        "--out", str(tmp_path), "--max-steps", "1", "--max-new-tokens", "4",
        "--n-ctx", "2048", "--threads", "0", "--headless",
    ]) == 0  # fmt: skip
    (run_dir,) = tmp_path.iterdir()
    model = json.loads((run_dir / "provenance.json").read_text())["model"]
    assert model["n_threads"] == os.cpu_count() and model["n_threads_auto"] is True
    assert model["n_threads_requested"] == 0
    capsys.readouterr()
    assert cli.main(["report", str(run_dir)]) == 0
    assert f"threads {os.cpu_count()} (auto)" in capsys.readouterr().out


@pytest.mark.slow
def test_the_example_config_runs_and_the_bandwidth_is_cached_per_device(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """examples/run.yaml loads as a run config (flags win); `doctor --bandwidth` caches this
    device's bandwidth, the run records it, and the report rates decode against it with no
    --bandwidth-gbs."""
    from paths import ROOT

    cache = tmp_path / "bandwidth.json"
    monkeypatch.setenv("EDGEAGENT_BANDWIDTH_CACHE", str(cache))
    assert cli.main(["doctor", "--bandwidth", "--json"]) == 0
    measured = json.loads(capsys.readouterr().out)
    bw = next(f for f in measured["findings"] if f["name"] == "bandwidth")
    assert str(cache) in bw["detail"] and cache.is_file()
    out = tmp_path / "runs"
    assert cli.main([
        "run", "--config", str(ROOT / "examples" / "run.yaml"), "--model", str(tiny_model_path),
        "--task", "fix-add", "--out", str(out), "--max-steps", "1", "--max-new-tokens", "4",
        "--n-ctx", "2048", *THREADS, "--headless",
    ]) == 0  # fmt: skip
    (run_dir,) = out.iterdir()
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert config["max_steps"] == 1 and config["wall_s"] == 300  # flag, then the file
    device = json.loads((run_dir / "provenance.json").read_text())["device"]
    cached = next(iter(json.loads(cache.read_text()).values()))
    assert device["memory_bandwidth"]["cached"] is True
    assert device["memory_bandwidth"]["gbs"] == cached["gbs"]
    capsys.readouterr()
    assert cli.main(["report", str(run_dir)]) == 0
    text = capsys.readouterr().out
    assert f"memory bandwidth {cached['gbs']:.1f} GB/s (streaming copy" in text
    assert "--bandwidth-gbs" not in text
    line = next(x for x in text.splitlines() if "roofline efficiency" in x)
    assert line.rstrip().endswith("%")
    assert "\nbuild  llama-cpp-python " in text and " cores / " in text


@pytest.mark.slow
def test_the_first_run_on_a_device_measures_the_bandwidth_once(
    tiny_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "bandwidth.json"
    monkeypatch.setenv("EDGEAGENT_BANDWIDTH_CACHE", str(cache))
    recorded = []
    for i in range(2):
        out = tmp_path / f"runs{i}"
        assert cli.main([
            "run", "--model", str(tiny_model_path), "--suite", "smoke", "--task", "fix-add",
            "--out", str(out), "--max-steps", "1", "--max-new-tokens", "4", "--n-ctx", "2048",
            "--headless", *THREADS,
        ]) == 0  # fmt: skip
        (run_dir,) = out.iterdir()
        prov = json.loads((run_dir / "provenance.json").read_text())
        recorded.append(prov["device"]["memory_bandwidth"])
    first, second = recorded
    assert first["cached"] is False and first["gbs"] > 0 and cache.is_file()
    assert second["cached"] is True and second["gbs"] == first["gbs"]


@pytest.mark.slow
def test_llama_cpp_warnings_are_recorded_not_printed(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    """n_ctx above the tiny model's training context: llama.cpp warns; the warning goes to
    provenance.json, not to the terminal."""
    done = subprocess.run([
        str(EDGEAGENT), "run", "--model", str(tiny_model_path), "--suite", "smoke", "--task",
        "fix-add", "--out", str(tmp_path), "--max-steps", "1", "--max-new-tokens", "4",
        "--n-ctx", "4096", "--headless", *THREADS,
    ], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "n_ctx_seq" not in done.stderr + done.stdout and "llama_context" not in done.stderr
    (run_dir,) = tmp_path.iterdir()
    model = json.loads((run_dir / "provenance.json").read_text())["model"]
    assert any("n_ctx_seq (4096) > n_ctx_train (2048)" in w
               for w in model["llama_cpp_load_warnings"])


@pytest.mark.slow
def test_a_reader_that_goes_away_fails_the_run_with_the_reason(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    """`edgeagent run | head`: the run is marked failed with the broken pipe as its reason,
    the task it was in gets an `interrupted` record (not "running" forever), the exit code
    is SIGPIPE's and stderr says how to resume."""
    config = tmp_path / "long.yaml"
    config.write_text("max_format_errors: 1000\n")
    out = tmp_path / "runs"
    argv = [
        str(EDGEAGENT), "run", "--config", str(config), "--model", str(tiny_model_path),
        "--suite", "smoke", "--out", str(out), "--max-steps", "50", "--max-new-tokens", "24",
        "--n-ctx", "8192", "--headless", *THREADS,
    ]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=tmp_path, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # read up to the first step line, then go away
            if " step " in line:
                break
        proc.stdout.close()
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 141, err
    assert "Traceback" not in err
    (run_dir,) = out.iterdir()
    assert f"edgeagent run --resume {run_dir}" in err
    run, tasks, _ = read_run(run_dir)
    assert run["status"] == "failed" and "broken pipe" in run["failure_reason"]
    assert tasks[-1]["termination"] == "interrupted" and "broken pipe" in tasks[-1]["error"]
    started = sorted(p.stem for p in (run_dir / "trajectories").glob("*.jsonl"))
    assert started == sorted(t["task_id"] for t in tasks)  # no task left "running"
    check = subprocess.run([str(EDGEAGENT), "check", str(run_dir)], capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 1
    assert f"run {run_dir.name} failed: the output's reader went away" in check.stdout
    report = subprocess.run([str(EDGEAGENT), "report", str(run_dir)], capture_output=True,
                            text=True, timeout=60)
    assert "[failed: the output's reader went away (broken pipe" in report.stdout


def _wait_for_first_step(out: Path, proc: subprocess.Popen, timeout_s: float) -> Path:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the run ended (exit {proc.returncode}) before any step"
        for db_path in out.glob("*/run.db"):
            with contextlib.suppress(sqlite3.Error):
                db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
                try:
                    if db.execute("SELECT count(*) FROM steps").fetchone()[0] >= 1:
                        return db_path.parent
                finally:
                    db.close()
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    raise AssertionError(f"no step recorded within {timeout_s} s")
