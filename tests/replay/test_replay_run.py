"""Replay end to end on the tiny model: the bundled smoke workload, dropped turns, export ->
import round trip of a run directory, and --from-run with re-executed tools.

The run directory to export comes from a real `execute_run` of the smoke suite whose engine
answers with each task's oracle action (the tiny model's noise makes no tool calls): the
steps, tools, sandbox and store are the live ones.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
import time
from pathlib import Path

import paths
import pytest
from cli_run import run_cli
from mlperf_schema import schema_errors
from paths import ROOT

from edgeagent import cli
from edgeagent.config import load_config
from edgeagent.engine.base import Generation, Message
from edgeagent.replay.dataset import dump_rows, load_dataset
from edgeagent.run import execute_run
from edgeagent.rundir import SCORES_FILE, SUMMARY_FILE, TURNS_FILE, open_run_db
from edgeagent.suite import load_oracle, load_suite

THREADS = ("--threads", "1")


def replay(*args: str) -> tuple[int, str, Path | None]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["replay", *args, *THREADS])
    text = out.getvalue()
    run_dir = next((line.split()[1] for line in text.splitlines()
                    if line.startswith("results: ")), None)
    return code, text, Path(run_dir) if run_dir else None


def steps_of(run_dir: Path) -> list[sqlite3.Row]:
    db = open_run_db(run_dir)
    try:
        return db.execute("SELECT * FROM steps ORDER BY task_id, step").fetchall()
    finally:
        db.close()


def turns_of(run_dir: Path) -> list[dict]:
    return [json.loads(x) for x in (run_dir / TURNS_FILE).read_text().splitlines()]


@pytest.fixture(scope="module")
def smoke_replay(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("replay")
    code, text, run_dir = replay("--model", str(tiny_model_path), "--conversations", "2",
                                 "--max-new-tokens", "8", "--n-ctx", "4096", "--out", str(out))
    assert code == 0, text
    assert run_dir is not None
    return run_dir, text


@pytest.mark.slow
def test_default_workload_replays_every_turn(smoke_replay) -> None:
    run_dir, text = smoke_replay
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    expected = sum(c.assistant_turns for c in load_dataset(
        ROOT / "tasks" / "replay" / "smoke.jsonl")[:2])
    assert summary["turns_total"] == summary["turns_completed"] == expected
    # two conversations are a smoke check, as `edgeagent check` says of the same directory
    assert summary["turns_dropped"] == 0 and summary["result"] == "SMOKE"
    for key in ("latency_ms", "ttft_ms", "tpot_ms", "isl_tokens", "osl_tokens"):
        assert set(summary[key]) >= {"mean", "p50", "p90", "p99"}, key
        # p90 and p99 follow the report's sample-size rule: null below 10 and 100 turns
        assert summary[key]["p99"] is None
        assert (summary[key]["p90"] is None) == (summary[key]["count"] < 10)
    assert summary["energy_per_turn_mJ"] is None and summary["energy_null_reason"]
    # our own tools (read_file, edit, run_tests, ...) are no MLPerf `bash` calls: MLPerf's
    # score has no ground truth here, our own rule scores them apart
    assert summary["inline_score"] is None and summary["inline_score_turns"] == 0
    assert 0.0 <= summary["own_inline_score"] <= 1.0
    # scores.json is MLPerf's own document, top level: no turn scored, every one excluded
    scores = json.loads((run_dir / SCORES_FILE).read_text())
    assert scores["score"] is None and scores["per_turn"] == []
    assert scores["turns"]["issued"] == expected
    assert len(scores["excluded_turns"]) == expected
    assert "Result is: SMOKE CHECK passed (2 trajectories: a smoke check" in text
    assert (run_dir / "report.txt").read_text().startswith("Result is: SMOKE CHECK passed")
    # replayed conversations are not "resolved"
    assert "2/2 conversations replayed" in text and "resolved" not in text


@pytest.mark.slow
def test_replay_prints_the_verdict_check_gives(
    smoke_replay, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, text = smoke_replay
    code = cli.main(["check", str(run_dir), "--json"])
    doc = json.loads(capsys.readouterr().out)
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    assert (code, doc["result"]) == (0, summary["result"])
    assert cli.main(["check", str(run_dir)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert [x for x in text.splitlines() if x.startswith("Result is:")] == [first]


@pytest.mark.slow
def test_replay_steps_are_recorded_like_live_steps(smoke_replay) -> None:
    run_dir, _ = smoke_replay
    steps = steps_of(run_dir)
    turns = turns_of(run_dir)
    assert len(steps) == len(turns)
    for conv in {s["task_id"] for s in steps}:
        conv_steps = [s for s in steps if s["task_id"] == conv]
        assert [s["step"] for s in conv_steps] == list(range(len(conv_steps)))
        # teacher forcing: each prompt extends the previous one, so the KV cache carries over
        for prev, cur in zip(conv_steps, conv_steps[1:], strict=False):
            assert cur["reused_tokens"] >= prev["context_tokens"] - 1 > 0
            assert cur["context_tokens"] > prev["context_tokens"]
        for s in conv_steps:
            assert s["prefill_tokens"] == s["context_tokens"] - s["reused_tokens"]
            assert s["t_start_ns"] <= s["t_first_token_ns"] <= s["t_decode_end_ns"]
            assert s["kv_cache_bytes"] > 0 and s["decoded_tokens"] >= 1
            assert s["energy_prefill_null_reason"]  # no sensor here: null with the reason
    db = open_run_db(run_dir)
    try:
        tasks = db.execute("SELECT * FROM tasks").fetchall()
    finally:
        db.close()
    assert {t["outcome"] for t in tasks} == {"replayed"}


@pytest.mark.slow
def test_report_reads_a_replay_run(smoke_replay, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir, _ = smoke_replay
    assert cli.main(["report", str(run_dir)]) == 0
    assert "fix-add" in capsys.readouterr().out


@pytest.mark.slow
def test_overflowing_turns_are_dropped_and_the_run_invalid(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    code, text, run_dir = replay("--model", str(tiny_model_path), "--conversations", "fix-add",
                                 "--max-new-tokens", "16", "--n-ctx", "1024",
                                 "--out", str(tmp_path))
    assert code == 1 and run_dir is not None, text  # INVALID exits 1, as `check` does
    turns = turns_of(run_dir)
    dropped = [t for t in turns if t["status"] == "dropped"]
    assert dropped and len(dropped) < len(turns)
    assert all("context overflow" in t["reason"] and t["score"] in (0.0, None)
               and t["own_score"] in (0.0, None) for t in dropped)
    # nothing was truncated to fit: a dropped turn leaves no step
    assert len(steps_of(run_dir)) == len(turns) - len(dropped)
    assert max(s["context_tokens"] for s in steps_of(run_dir)) + 16 <= 1024
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    assert summary["result"] == "INVALID" and summary["turns_dropped"] == len(dropped)
    assert "dropped" in summary["invalid_reasons"][0]
    assert "Result is: INVALID" in text
    assert cli.main(["check", str(run_dir)]) == 1


class OracleEngine:
    """Answers each step with the task's next oracle action (input for the export tests)."""

    n_ctx = 8192

    def __init__(self) -> None:
        self.actions: list[str] = []

    def provenance(self) -> dict:
        return {"backend": "oracle actions (test input)", "n_ctx": self.n_ctx}

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return text

    def generate(self, messages: list[Message], *, max_tokens: int, grammar=None,
                 max_context_tokens=None, on_token=None) -> Generation:
        t0 = time.monotonic_ns()
        text = self.actions.pop(0) if self.actions else "not json"
        t1 = time.monotonic_ns()
        context = sum(self.count_tokens(m.content) for m in messages)
        return Generation(text, (), "stop", context, 0, context, 1, t0, t0, t1, t1, (t1,))


@pytest.fixture(scope="module")
def oracle_run(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    engine = OracleEngine()
    for task in load_suite("smoke").tasks:
        engine.actions += [json.dumps({"name": s.tool, "arguments": s.args})
                           for s in load_oracle(task)]
    engine.actions.insert(1, "this is not a tool call")  # one format error step in fix-add
    out = tmp_path_factory.mktemp("oracle-runs")
    config = load_config(None, {"model": str(tiny_model_path), "out": str(out),
                                "draft_first": False})  # the oracle's steps only
    result = execute_run(config, engine_factory=lambda path, cfg: engine, progress=False)
    return result.run_dir


@pytest.mark.slow
def test_export_import_round_trip_is_exact(oracle_run: Path, tmp_path: Path) -> None:
    target = tmp_path / "export.jsonl"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main(["export", str(oracle_run), "--format", "mlperf-agentic",
                         "-o", str(target)]) == 0
    convs = load_dataset(target)
    assert dump_rows(convs) == target.read_text()
    # MLPerf's own schema takes every row, the format-error turn's plain message included
    assert schema_errors(target) == []
    assert [c.id for c in convs] == ["fix-add", "fix-shout", "fix-sum-to"]
    for conv in convs:
        records = [json.loads(x) for x in
                   (oracle_run / "trajectories" / f"{conv.id}.jsonl").read_text().splitlines()]
        started = records[0]
        steps = [r for r in records if r["type"] == "step"]
        assert conv.rows[0].system == started["system_prompt"]
        assert conv.rows[0].content == started["task_prompt"]
        rows = list(conv.rows[1:])
        for step in steps:
            assistant, after = rows.pop(0), rows.pop(0)
            if step["action_name"]:
                (call,) = assistant.tool_calls
                assert (call.name, call.args) == (step["action_name"], step["action_args"])
                assert after.role == "tool"
                assert after.tool_results[0].tool_call_id == call.id
                assert after.tool_results[0].content == step["observation"]
                assert after.delay_seconds == pytest.approx(step["tool_ms"] / 1000, abs=1e-6)
            else:
                # a plain assistant message: MLPerf's schema has no `tool_calls: []`
                assert assistant.tool_calls is None and assistant.content == step["raw_output"]
                assert after.role == "user" and after.content == step["observation"]
        assert rows == []
    assert any(not r.tool_calls for c in convs for r in c.rows if r.role == "assistant")


@pytest.mark.slow
def test_from_run_reexecutes_tools_in_the_sandbox(
    oracle_run: Path, tiny_model_path: Path, tmp_path: Path
) -> None:
    code, text, run_dir = replay("--from-run", str(oracle_run), "--reexecute-tools",
                                 "--conversations", "fix-shout", "--model",
                                 str(tiny_model_path), "--max-new-tokens", "4",
                                 "--out", str(tmp_path))
    assert code == 0 and run_dir is not None, text
    steps = steps_of(run_dir)
    assert [s["task_id"] for s in steps] == ["fix-shout"] * 4
    # the oracle's run_tests step (third) ran the tests again here, after the re-executed
    # edit: exit code 0 and a measured tool wait
    assert steps[2]["tool_exit_code"] == 0 and steps[2]["tool_ms"] > 0
    trajectory = [json.loads(x) for x in
                  (run_dir / "trajectories" / "fix-shout.jsonl").read_text().splitlines()]
    assert "OK" in [r for r in trajectory if r["type"] == "step"][2]["observation"]


def test_reexecute_needs_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["replay", "--reexecute-tools", "--out", str(tmp_path)]) == 2
    assert "--from-run" in capsys.readouterr().err


FIXTURES = paths.FIXTURES / "sysfs"
WATTS = 4.11312  # tests/fixtures/sysfs/hwmon/sbc: power1_input = 4113120 µW


@pytest.mark.slow
def test_mlperf_style_dataset_metered_with_injected_delay(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    from test_replay_dataset import conversation, write

    dataset = write(tmp_path, conversation("c1"))
    code, text, run_dir = replay(str(dataset), "--model", str(tiny_model_path),
                                 "--inject-tool-delay", "--max-new-tokens", "8",
                                 "--n-ctx", "2048", "--out", str(tmp_path / "runs"),
                                 "--power-root", str(FIXTURES / "hwmon" / "sbc"))
    assert code == 0 and run_dir is not None, text
    steps = steps_of(run_dir)
    assert len(steps) == 3
    # the recorded waits (0.2 s, 1.5 s) were slept as the tool phase; the last turn has none
    assert steps[0]["tool_ms"] >= 200 and steps[1]["tool_ms"] >= 1500
    assert steps[2]["tool_ms"] < 200
    for s in steps:
        for phase, (t0, t1) in {"prefill": (s["t_start_ns"], s["t_first_token_ns"]),
                                "decode": (s["t_first_token_ns"], s["t_decode_end_ns"]),
                                "tool": (s["t_tool_start_ns"], s["t_tool_end_ns"])}.items():
            assert s[f"energy_{phase}_j"] == pytest.approx(WATTS * (t1 - t0) / 1e9, rel=1e-6)
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    per_turn = [(s["energy_prefill_j"] + s["energy_decode_j"]) * 1000 for s in steps]
    assert summary["energy_per_turn_mJ"]["mean"] == pytest.approx(sum(per_turn) / 3)
    assert summary["energy_source"] == "hwmon:ina226/power1"
    # the recorded bash executables of turn 4 (cat, python3.11 -> python) are the reference
    turns = turns_of(run_dir)
    assert turns[1]["reference_executables"] == ["cat", "python"]
    assert turns[2]["reference_executables"] == []
    # the tools are listed for the model since the system prompt does not name them
    started = json.loads((run_dir / "trajectories" / "c1.jsonl").read_text().splitlines()[0])
    assert "- bash(command)" in started["system_prompt"]


@pytest.mark.slow
def test_a_replay_run_is_not_exported_as_a_trajectory(
    smoke_replay, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = smoke_replay
    assert cli.main(["export", str(run_dir)]) == 2
    assert "is a replay run" in capsys.readouterr().err


def run_wall_ms(run_dir: Path) -> float:
    db = open_run_db(run_dir)
    try:
        return db.execute("SELECT wall_ms FROM runs").fetchone()[0]
    finally:
        db.close()


@pytest.mark.slow
def test_a_finished_replay_resumes_to_the_same_turns(smoke_replay) -> None:
    """--resume on a complete replay keeps every conversation: no turn is generated again.
    The run's wall is the sum of its processes' walls, as the summary gives it."""
    run_dir, _ = smoke_replay
    before = turns_of(run_dir)
    wall_before = run_wall_ms(run_dir)
    code, out, err = run_cli("replay", "--resume", str(run_dir), "--json", *THREADS)
    assert code == 0, err
    assert turns_of(run_dir) == before
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    assert summary["turns_total"] == len(before)
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    segment = next(e["wall_ms"] for e in events if e["event"] == "RunFinished")
    assert run_wall_ms(run_dir) == pytest.approx(wall_before + segment)
    assert summary["duration_s"] == pytest.approx((wall_before + segment) / 1000)


@pytest.mark.slow
@pytest.mark.parametrize("flag", [("--conversations", "1"), ("--mlperf",),
                                  ("--max-new-tokens", "4")])
def test_resume_refuses_flags_that_change_the_replay(smoke_replay, flag: tuple) -> None:
    run_dir, _ = smoke_replay
    code, _, err = run_cli("replay", "--resume", str(run_dir), *flag)
    assert code == 2 and "Traceback" not in err
    assert err.count("\n") == 1 and "drop " + flag[0].lstrip("-") in err.replace("--", "")


@pytest.mark.slow
def test_resume_names_the_command_for_the_other_kind_of_run(smoke_replay, tmp_path) -> None:
    run_dir, _ = smoke_replay
    code, _, err = run_cli("run", "--resume", str(run_dir))
    assert code == 2 and f"edgeagent replay --resume {run_dir}" in err
    live = tmp_path / "live"
    shutil.copytree(run_dir, live)
    config = live / "config.yaml"
    config.write_text(config.read_text().split("\nreplay:")[0] + "\n")
    code, _, err = run_cli("replay", "--resume", str(live))
    assert code == 2 and f"edgeagent run --resume {live}" in err


@pytest.mark.slow
def test_resume_refuses_a_changed_dataset(smoke_replay, tmp_path) -> None:
    run_dir, _ = smoke_replay
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    dataset = tmp_path / "data.jsonl"
    dataset.write_text((ROOT / "tasks" / "replay" / "smoke.jsonl").read_text())
    config = copy / "config.yaml"
    text = config.read_text()
    source = next(x.split(": ", 1)[1] for x in text.splitlines() if x.startswith("  source:"))
    config.write_text(text.replace(source, str(dataset)))
    with dataset.open("a") as f:
        f.write("\n")
    code, _, err = run_cli("replay", "--resume", str(copy))
    assert code == 2 and f"{dataset} changed since" in err and "Traceback" not in err
