"""`edgeagent replay --isl` and `--n-ctx auto` on the tiny model: a synthetic conversation of
32 turns whose contexts pass 8,192 tokens replays with no turn dropped and no --n-ctx, each
turn's ISL from --isl is the context the replay prefilled for it, the chosen context and
its reason are recorded, the training context caps it; and result_summary.json carries
MLPerf endpoints' field names for the shared metrics."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path

import pytest
from cli_run import run_cli
from paths import FIXTURES, ROOT

from edgeagent import cli
from edgeagent.replay.synthetic import write_synthetic
from edgeagent.rundir import SUMMARY_FILE, TURNS_FILE

THREADS = ("--threads", "1")


def replay(*args: str) -> tuple[int, str, Path | None]:
    code, text, _ = run_cli("replay", *args, *THREADS)
    run_dir = next((line.split()[1] for line in text.splitlines()
                    if line.startswith("results: ")), None)
    return code, text, Path(run_dir) if run_dir else None


def make_tiny_model():
    spec = importlib.util.spec_from_file_location("tiny", ROOT / "tools" / "make_tiny_model.py")
    assert spec is not None and spec.loader is not None
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)
    return tiny


@pytest.fixture(scope="module")
def long_tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model declaring a 64k training context, so auto is not capped at 2048."""
    out = tmp_path_factory.mktemp("tiny_long") / "tiny-long.gguf"
    return make_tiny_model().write_tiny_model(out, seed=0, n_ctx_train=65536)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic(tmp_path_factory.mktemp("synthetic") / "synthetic.jsonl", 32)


@pytest.fixture(scope="module")
def long_replay(long_tiny_model: Path, synthetic: Path,
                tmp_path_factory: pytest.TempPathFactory) -> Path:
    # no --n-ctx: the default is auto (--max-new-tokens small only to keep the noise short)
    code, text, run_dir = replay(str(synthetic), "--model", str(long_tiny_model),
                                 "--max-new-tokens", "4",
                                 "--out", str(tmp_path_factory.mktemp("runs")))
    assert code == 0 and run_dir is not None, text
    return run_dir


def isl_of(dataset: Path, model: Path, *extra: str) -> dict:
    code, out, err = run_cli("replay", str(dataset), "--isl", "--json", "--model", str(model),
                             *extra)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_long_conversation_replays_every_turn_with_the_default_context(long_replay) -> None:
    summary = json.loads((long_replay / SUMMARY_FILE).read_text())
    assert summary["turns_dropped"] == 0 and summary["turns_completed"] == 32
    # the contexts pass 8,192 tokens: the old fixed default would have dropped these turns
    assert summary["isl_tokens"]["max"] > 8192
    auto = summary["settings"]["n_ctx_auto"]
    assert auto["largest_isl"] == summary["isl_tokens"]["max"]
    assert summary["settings"]["n_ctx"] == auto["n_ctx"] >= auto["largest_isl"] + 4
    assert auto["n_ctx_train"] == 65536 and "largest ISL" in auto["reason"]
    provenance = json.loads((long_replay / "provenance.json").read_text())
    assert provenance["replay"]["n_ctx_auto"] == auto
    assert provenance["model"]["n_ctx"] == provenance["config"]["n_ctx"] == auto["n_ctx"]


@pytest.mark.slow
def test_isl_is_the_context_each_replayed_turn_prefilled(
    long_replay, long_tiny_model: Path, synthetic: Path, tmp_path: Path
) -> None:
    report = isl_of(synthetic, long_tiny_model, "-o", str(tmp_path / "isl.json"))
    assert json.loads((tmp_path / "isl.json").read_text()) == report
    turns = [json.loads(x) for x in (long_replay / TURNS_FILE).read_text().splitlines()]
    assert [(t["turn"], t["isl"]) for t in report["turns"]] == \
        [(t["turn"], t["context_tokens"]) for t in turns]
    dist = report["distribution"]
    assert dist["turns"] == 32 and dist["max"] == max(t["context_tokens"] for t in turns)
    assert dist["min"] <= dist["p50"] <= dist["p90"] <= dist["p99"] <= dist["max"]
    code, text, _ = run_cli("replay", str(synthetic), "--isl", "--model", str(long_tiny_model))
    assert code == 0
    assert (f"ISL distribution (32 turns, tokenizer {long_tiny_model.name}, text tool format)"
            in text)
    assert f"  max  : {dist['max']}" in text
    assert not list(long_replay.parent.glob("*isl*"))  # --isl made no run directory


@pytest.mark.slow
def test_native_isl_is_the_context_each_replayed_turn_prefilled(tmp_path: Path) -> None:
    """With a template that has native tool calls (Qwen's, on the tiny model) --isl renders
    the dataset's tools and native messages, as the replay does: the same count per turn."""
    template = (FIXTURES / "templates" / "qwen2.5-coder-instruct.jinja").read_text()
    tiny_tools_model_path = make_tiny_model().write_tiny_model(
        tmp_path / "tiny-tools-long.gguf", seed=0, chat_template=template, tools=True,
        n_ctx_train=65536)
    dataset = write_synthetic(tmp_path / "short.jsonl", 6, read_lines=4)
    report = isl_of(dataset, tiny_tools_model_path)
    assert report["tool_format"] == "native"
    code, text, run_dir = replay(str(dataset), "--model", str(tiny_tools_model_path),
                                 "--max-new-tokens", "4", "--out", str(tmp_path / "runs"))
    assert code == 0 and run_dir is not None, text
    turns = [json.loads(x) for x in (run_dir / TURNS_FILE).read_text().splitlines()]
    assert len(turns) == 6 and all(t["status"] == "completed" for t in turns)
    assert [(t["turn"], t["isl"]) for t in report["turns"]] == \
        [(t["turn"], t["context_tokens"]) for t in turns]
    text_report = isl_of(dataset, tiny_tools_model_path, "--tool-format", "text")
    assert text_report["tool_format"] == "text"
    # the native prompt carries the tools' JSON schemas: longer on every turn
    assert all(n["isl"] > t["isl"] for n, t in zip(report["turns"], text_report["turns"],
                                                    strict=True))


@pytest.mark.slow
def test_summary_carries_mlperf_endpoints_field_names(long_replay) -> None:
    summary = json.loads((long_replay / SUMMARY_FILE).read_text())
    assert summary["n_samples_issued"] == summary["turns_total"]
    assert summary["n_samples_completed"] == summary["turns_completed"]
    assert summary["n_samples_failed"] == summary["turns_dropped"] == 0
    assert summary["state"] == "complete" and summary["complete"] is True
    assert summary["duration_ns"] == pytest.approx(summary["duration_s"] * 1e9, abs=1)
    for ours, theirs, scale in (("ttft_ms", "ttft", 1e6), ("tpot_ms", "tpot", 1e6),
                                ("latency_ms", "latency", 1e6),
                                ("isl_tokens", "input_sequence_lengths", 1),
                                ("osl_tokens", "output_sequence_lengths", 1)):
        block = summary[theirs]
        assert block["avg"] == pytest.approx(summary[ours]["mean"] * scale, rel=1e-6, abs=1)
        assert block["max"] == pytest.approx(summary[ours]["max"] * scale, rel=1e-6, abs=1)
        assert block["median"] == block["percentiles"]["50.0"]
        assert set(block["percentiles"]) >= {"99.9", "99.0", "90.0", "50.0", "1.0"}
        assert sum(block["histogram"]["counts"]) == summary[ours]["count"]
    osl = summary["output_sequence_lengths"]["total"]
    assert summary["tps"] == pytest.approx(osl / summary["duration_s"], rel=1e-6)
    assert summary["qps"] == pytest.approx(32 / summary["duration_s"], rel=1e-6)


@pytest.mark.slow
def test_bundled_workload_replays_every_turn_with_the_default_context(
    long_tiny_model: Path, tmp_path: Path
) -> None:
    code, text, run_dir = replay("--model", str(long_tiny_model), "--max-new-tokens", "8",
                                 "--conversations", "1", "--out", str(tmp_path))
    assert code == 0 and run_dir is not None, text
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    assert summary["turns_dropped"] == 0 and summary["turns_completed"] > 0
    assert summary["settings"]["n_ctx_auto"]["largest_isl"] == summary["isl_tokens"]["max"]


@pytest.mark.slow
def test_auto_context_is_capped_by_the_training_context(
    tiny_model_path: Path, synthetic: Path, tmp_path: Path
) -> None:
    # the plain tiny model was trained (it says) on 2048 tokens: the long turns are dropped
    # with the reason, never truncated, and the cap is recorded
    code, text, run_dir = replay(str(synthetic), "--model", str(tiny_model_path),
                                 "--max-new-tokens", "4", "--out", str(tmp_path))
    assert code == 1 and run_dir is not None, text  # INVALID, as `check` exits
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    auto = summary["settings"]["n_ctx_auto"]
    assert auto["n_ctx"] == auto["n_ctx_train"] == 2048 and "capped" in auto["reason"]
    turns = [json.loads(x) for x in (run_dir / TURNS_FILE).read_text().splitlines()]
    dropped = [t for t in turns if t["status"] == "dropped"]
    assert dropped and all("context overflow" in t["reason"] for t in dropped)
    assert summary["n_samples_failed"] == len(dropped)


def test_isl_user_errors_are_one_line(tmp_path: Path) -> None:
    code, _, err = run_cli("replay", "--isl", "--endpoint", "http://127.0.0.1:9/v1")
    assert code == 2 and "--tokenizer" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli("replay", "-o", str(tmp_path / "x.json"), "--out", str(tmp_path))
    assert code == 2 and "--isl" in err and len(err.strip().splitlines()) == 1
    err_out = io.StringIO()
    with contextlib.redirect_stderr(err_out), pytest.raises(SystemExit) as exc:
        cli.main(["replay", "--n-ctx", "lots"])
    assert exc.value.code == 2 and "expected an integer or auto" in err_out.getvalue()
