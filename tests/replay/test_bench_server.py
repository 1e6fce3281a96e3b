"""tools/bench_server.py: the synthetic MLPerf-format conversation, and the whole bench (in
process vs the C++ llama-server) on the tiny model when a llama-server binary is built."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sqlite3
import statistics
import sys
from pathlib import Path

import pytest
import yaml
from paths import ROOT

from edgeagent.cli import main as cli_main
from edgeagent.engine.llama_server import BUILD_COMMAND, find_llama_server
from edgeagent.replay import load_dataset

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow


def _bench():
    # tools/ is a folder of scripts, not a package, so it is imported by file path
    script = ROOT / "tools" / "bench_server.py"
    spec = importlib.util.spec_from_file_location("bench_server", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_synthetic_conversation_is_an_mlperf_dataset_of_30_plus_turns(tmp_path: Path) -> None:
    bench = _bench()
    path = bench.write_synthetic(tmp_path / "a.jsonl", 32)
    (conv,) = load_dataset(path)  # the replay's own loader accepts every row
    calls = [r.tool_calls[0] for r in conv.rows if r.role == "assistant"]
    assert len(calls) == 32 and calls[-1].name == "submit"
    assert {c.name for c in calls} >= {"read_file", "grep", "run_tests", "edit", "list_dir"}
    results = [r for r in conv.rows if r.role == "tool"]
    assert [r.tool_results[0].tool_call_id for r in results] == [c.id for c in calls]
    again = bench.write_synthetic(tmp_path / "b.jsonl", 32)
    assert again.read_text() == path.read_text()  # deterministic: the same workload each run


SERVER = find_llama_server()


@pytest.mark.skipif(SERVER is None, reason=f"no llama-server built for this llama-cpp-python; "
                    f"build one with `{BUILD_COMMAND}`")
def test_bench_server_replays_in_process_and_through_llama_server(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench()
    out = tmp_path / "bench"
    assert bench.main(["--model", str(tiny_model_path), "--threads", "1", "--n-ctx", "2048",
                       "--max-new-tokens", "8", "--datasets", "smoke", "--conversations", "1",
                       "--server-first",
                       "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    summary = json.loads((out / "summary.json").read_text())
    assert printed == summary
    assert summary["llama_server"]["binary"] == str(SERVER)
    assert summary["llama_server"]["version"].startswith("version")
    smoke = summary["datasets"]["smoke"]
    assert "-np" in smoke["server_command"] and "1" in smoke["server_command"]
    assert smoke["order"] == "llama-server first"
    for path in ("in_process", "llama_server"):
        numbers = smoke[path]
        assert numbers["turns_completed"] == 4 and numbers["turns_dropped"] == 0
        assert numbers["latency_ms_p50"] > 0 and numbers["ttft_ms_p50"] > 0
        assert numbers["decode_tok_s"] > 0
    turns = smoke["turns"]
    assert turns["paired_turns"] == 4 and turns["turns_only_in_one_path"] == 0
    assert isinstance(turns["token_counts_equal"], bool)
    spent = turns["where_the_time_goes_ms_p50"]
    assert spent["server_prefill"] is not None and spent["server_outside_model"] is not None
    assert smoke["latency_p50_ratio_in_process_vs_server"] == pytest.approx(
        smoke["in_process"]["latency_ms_p50"] / smoke["llama_server"]["latency_ms_p50"], abs=1e-3)
    # a verdict only where both paths did the same work
    assert summary["settings"]["tool_format"] == "auto"
    ratio = smoke["latency_p50_ratio_in_process_vs_server"]
    assert smoke["target_met"] == (turns["token_counts_equal"] and ratio <= 0.95)
    assert (smoke["target_note"] is None) == turns["token_counts_equal"]

    # the two run directories side by side, as `edgeagent compare` prints them
    a, b = smoke["in_process"]["run_dir"], smoke["llama_server"]["run_dir"]
    with contextlib.redirect_stdout(io.StringIO()) as shown:
        assert cli_main(["compare", a, b]) == 0
    table = shown.getvalue()
    assert Path(a).name in table and Path(b).name in table
    assert "TTFT p50" in table and "step latency p90" in table


@pytest.mark.skipif(SERVER is None, reason=f"no llama-server built for this llama-cpp-python; "
                    f"build one with `{BUILD_COMMAND}`")
def test_native_replay_through_llama_server_decodes_the_in_process_tokens(
    tiny_tools_long_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Natively (Qwen's template, <tool_call> tokens) llama-server gets the dataset's tools,
    tool_choice none and our native-call GBNF: every turn's prompt and output token counts
    and text equal the in-process engine's (with tool_choice required it ran unconstrained)."""
    model = tiny_tools_long_model_path
    bench = _bench()
    out = tmp_path / "bench"
    assert bench.main(["--model", str(model), "--threads", "1", "--n-ctx", "8192",
                       "--max-new-tokens", "24", "--datasets", "smoke", "--conversations", "1",
                       "--tool-format", "native", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    turns = summary["datasets"]["smoke"]["turns"]
    assert summary["settings"]["tool_format"] == "native"
    assert turns["paired_turns"] == 4 and turns["token_counts_equal"], turns
    assert turns["same_generated_text"] == 4


@pytest.mark.skipif(SERVER is None, reason=f"no llama-server built for this llama-cpp-python; "
                    f"build one with `{BUILD_COMMAND}`")
def test_serve_only_compares_serve_with_llama_server_in_abba_order(
    tiny_tools_long_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`edgeagent serve` asked as the endpoint engine asks llama-server (tools, tool_choice
    none, our native-call GBNF): the same tokens on every turn of every repeat, and a ratio
    of pooled medians over repeats that alternate which path goes first."""
    bench = _bench()
    out = tmp_path / "bench"
    assert bench.main(["--model", str(tiny_tools_long_model_path), "--threads", "1",
                       "--n-ctx", "8192", "--max-new-tokens", "24", "--datasets", "smoke",
                       "--conversations", "1", "--tool-format", "native", "--serve-only",
                       "--repeats", "2", "--out", str(out)]) == 0
    smoke = json.loads(capsys.readouterr().out)["datasets"]["smoke"]
    assert smoke["order"] == ["llama-server", "serve", "serve", "llama-server"]
    assert smoke["token_counts_equal_every_repeat"], smoke["turns"]
    assert smoke["turns"]["same_generated_text"] == smoke["turns"]["paired_turns"] == 4
    assert len(smoke["ratio_per_repeat"]) == 2 and len(smoke["edgeagent_serve"]) == 2
    pooled = smoke["turn_latency_ms_p50_pooled"]
    assert smoke["latency_p50_ratio_serve_vs_server"] == pytest.approx(
        pooled["serve"] / pooled["llama_server"], abs=2e-3)
    assert smoke["target_met"] == (smoke["latency_p50_ratio_serve_vs_server"] <= 1.0)
    # serve's sampling is what serve itself recorded, not the client's transport time
    first_serve_run = sorted((out / "smoke" / "serve_runs").iterdir())[0]
    db = sqlite3.connect(first_serve_run / "run.db")
    recorded = [ms for (ms,) in db.execute("SELECT sample_ms FROM steps")]
    db.close()
    where = smoke["turns"]["where_the_time_goes_ms_p50"]
    assert "in_process_sampling" not in where
    assert where["serve_sampling"] == pytest.approx(statistics.median(recorded), abs=0.01)


@pytest.mark.skipif(SERVER is None, reason=f"no llama-server built for this llama-cpp-python; "
                    f"build one with `{BUILD_COMMAND}`")
def test_in_process_repeats_alternate_with_llama_server(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--repeats 2` without --serve-only: in process against llama-server in ABBA order,
    the ratio of pooled medians against the 0.95 target, each repeat's pair compared."""
    bench = _bench()
    out = tmp_path / "bench"
    assert bench.main(["--model", str(tiny_model_path), "--threads", "1", "--n-ctx", "2048",
                       "--max-new-tokens", "8", "--datasets", "smoke", "--conversations", "1",
                       "--repeats", "2", "--out", str(out)]) == 0
    smoke = json.loads(capsys.readouterr().out)["datasets"]["smoke"]
    assert smoke["order"] == ["llama-server", "in_process", "in_process", "llama-server"]
    assert len(smoke["in_process"]) == len(smoke["llama_server"]) == 2
    assert len(smoke["turns_every_repeat"]) == 2
    pooled = smoke["turn_latency_ms_p50_pooled"]
    ratio = smoke["latency_p50_ratio_in_process_vs_server"]
    assert ratio == pytest.approx(pooled["in_process"] / pooled["llama_server"], abs=2e-3)
    assert smoke["target_ratio"] == 0.95
    assert smoke["target_met"] == (smoke["token_counts_equal_every_repeat"] and ratio <= 0.95)
    assert smoke["turns"]["where_the_time_goes_ms_p50"]["in_process_sampling"] is not None


@pytest.mark.skipif(SERVER is None, reason=f"no llama-server built for this llama-cpp-python; "
                    f"build one with `{BUILD_COMMAND}`")
def test_long_mode_runs_mlperf_settings_against_the_reference_server(
    tiny_tools_long_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--long` on a short cut: both sides replay with --mlperf, llama-server with MLPerf's
    reference flags and nothing of ours, in ABBA order; the verdict needs both the cut's wall
    ratio and the pooled turn-latency p50 ratio at or under 0.95, whatever the tokens."""
    bench = _bench()
    out = tmp_path / "bench"
    assert bench.main(["--model", str(tiny_tools_long_model_path), "--long", "--datasets",
                       "smoke", "--conversations", "1", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["settings"]["llama_server"] == list(bench.REFERENCE_FLAGS)
    smoke = summary["datasets"]["smoke"]
    assert smoke["order"] == ["llama-server", "in_process", "in_process", "llama-server"]
    for path in ("in_process", "llama_server"):
        assert len(smoke[path]) == 2
        for numbers in smoke[path]:
            assert numbers["turns_completed"] == 4 and numbers["turns_dropped"] == 0
            # the smoke cut has no turn MLPerf's scorer counts: its inline score is null
            assert numbers["wall_s"] > 0 and "inline_score" in numbers
    # the server was started with the reference flags alone: no threads, batch or FA of ours
    config = yaml.safe_load((Path(smoke["llama_server"][0]["run_dir"]) / "config.yaml")
                            .read_text())
    assert config["temperature"] == 0 and config["seed"] == 42
    assert config["max_new_tokens"] == 1024
    log = (out / "smoke" / "llama-server.log").read_text()
    assert "--threads" not in " ".join(bench.REFERENCE_FLAGS) and "n_threads" in log
    assert smoke["server_threads"] >= 1  # the count it chose, read from its log
    # through the server, what it prefilled is its prompt minus its cache_n
    served = smoke["llama_server"][0]
    assert served["prefilled_tokens_per_turn_mean"] == pytest.approx(
        served["server_prompt_minus_cache_n_per_turn_mean"], abs=0.1)
    total = smoke["wall_s_total"]
    assert smoke["wall_ratio_in_process_vs_server"] == pytest.approx(
        total["in_process"] / total["llama_server"], abs=2e-3)
    ratios = (smoke["wall_ratio_in_process_vs_server"],
              smoke["latency_p50_ratio_in_process_vs_server"])
    assert smoke["target_met"] == all(r <= 0.95 for r in ratios)
    assert set(smoke["turns"]["first_divergent_turn"]) == {
        step["task_id"] for step in _steps_of(Path(served["run_dir"]))}
    assert len(smoke["inline_scores"]["in_process"]) == 2


def _steps_of(run_dir: Path) -> list[dict]:
    db = sqlite3.connect(run_dir / "run.db")
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT task_id, step FROM steps")]
    finally:
        db.close()
