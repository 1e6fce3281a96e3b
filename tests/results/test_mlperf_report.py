"""RUN_DIR/mlperf/: a report directory MLPerf's compliance checker (`check_submission`) can
load, its config.yaml in MLPerf's schema and its scorer files copied. Checked against the
rules of mlperf_benchmark_config.py, read from MLPerf's schema by hand: not MLPerf's own
validation, which cannot be installed here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from mlperf_benchmark_config import config_errors, config_lock, load
from paths import FIXTURES
from scripted import ScriptedEngine

from edgeagent.accuracy.samples import SampleResult
from edgeagent.accuracy.summary import results_document, write_results
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.replay.dataset import load_dataset
from edgeagent.results.mlperf_report import (
    IN_PROCESS_ENDPOINT,
    MLPERF_DIR,
    accuracy_benchmark_config,
    replay_benchmark_config,
)
from edgeagent.run import ReplaySource, execute_replay
from edgeagent.rundir import MLPERF_RESULTS_FILE, SCORES_FILE

LOCKED = {"temperature==0": True, "seed==42": True, "single_stream": True}

# MLPerf's own configs, the ground truth of valid files: the schema-valid config its checker
# test round-trips through BenchmarkConfig.from_yaml_file (tests/unit/compliance/
# test_checker.py at 626b9623), and the Edge Agentic full run (examples/
# 11_Edge_Agentic_Example/online_edge_full_run.yaml) less its two version-bound keys
CHECKER_TEST_CONFIG = """
name: compliance-test
type: offline
model_params: {name: qwen3.6-27b, temperature: 0.0, seed: 42}
datasets:
  - {name: "bfcl_v4::function_calling", type: accuracy, path: bfcl.jsonl}
settings:
  runtime: {dataloader_random_seed: 42}
  load_pattern: {type: max_throughput}
  client: {num_workers: 1, max_connections: 1}
endpoint_config: {endpoints: ["http://localhost:8000"]}
"""
EDGE_FULL_RUN = """
name: edge-agentic-full-run
version: "1.0"
type: online
model_params: {name: Qwen3.6-27B-Q4_K_M, tokenizer_name: Qwen/Qwen3.6-27B, temperature: 0,
               seed: 42, max_new_tokens: 1024}
datasets:
  - name: agentic_coding
    type: performance
    path: examples/11_Edge_Agentic_Example/agentic_coding_2.5h.jsonl
    accuracy_config: {eval_method: agentic_inference_inline}
    agentic_inference: {turn_timeout_s: 600.0, num_trajectories_to_issue: 20}
  - name: "bfcl_v4::function_calling"
    type: accuracy
    accuracy_config: {eval_method: bfcl_v4, ground_truth: ground_truth,
                      extractor: function_call_extractor, num_repeats: 1}
settings:
  runtime: {dataloader_random_seed: 42}
  load_pattern: {type: agentic_inference, target_concurrency: 1}
  client: {num_workers: 1, max_connections: 1, warmup_connections: 0}
endpoint_config: {endpoints: ["http://localhost:8080"], api_type: openai, api_key: null}
report_dir: results/edge_agentic_full_run/
"""


def run_config(**overrides: Any) -> dict[str, Any]:
    """Our config.yaml's content (RunConfig) for a replay."""
    config = load_config(None, {"seed": 42, "max_new_tokens": 1024, **overrides}).to_dict()
    config["replay"] = {"source": "/data/agentic_coding_2.5h.jsonl", "concurrency": 1,
                        "inject_tool_delay": False, "conversations": ["a", "b", "c"]}
    return config


@pytest.mark.parametrize("text", [CHECKER_TEST_CONFIG, EDGE_FULL_RUN])
def test_mlperfs_own_valid_configs_pass_these_rules(text: str) -> None:
    doc = yaml.safe_load(text)
    assert config_errors(doc) == []
    assert config_lock(doc) == LOCKED


def test_the_rules_refuse_what_mlperfs_schema_refuses() -> None:
    # our own config.yaml: no `type`, no endpoint_config, and keys MLPerf does not know
    assert config_errors(run_config()) != []
    base = yaml.safe_load(EDGE_FULL_RUN)
    for path, value in [(("settings", "runtime", "max_duration_ms"), 1),  # version-bound
                        (("datasets", 1, "generate_params"), {}),  # `params` before
                        (("settings", "load_pattern", "type"), "max_throughput"),
                        (("endpoint_config", "endpoints"), ["localhost:8080"]),
                        (("model_params", "name"), ""),
                        (("endpoint_config", "api_key"), "${UNSET_KEY}")]:
        doc = yaml.safe_load(EDGE_FULL_RUN)
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        assert config_errors(doc) != [], path
    del base["endpoint_config"]
    assert config_errors(base) == ["endpoint_config: required"]


def test_a_replay_is_mlperfs_performance_phase() -> None:
    doc = replay_benchmark_config(run_config(), "qwen2.5-coder")
    assert config_errors(doc) == [] and config_lock(doc) == LOCKED
    assert doc["type"] == "online"
    assert doc["model_params"] == {"name": "qwen2.5-coder", "temperature": 0.0, "seed": 42,
                                   "max_new_tokens": 1024}
    (dataset,) = doc["datasets"]
    assert dataset["name"] == "agentic_coding_2.5h" and dataset["type"] == "performance"
    assert dataset["agentic_inference"] == {"turn_timeout_s": 600.0, "inject_tool_delay": False,
                                            "num_trajectories_to_issue": 3}
    assert doc["settings"]["load_pattern"] == {"type": "agentic_inference",
                                               "target_concurrency": 1}
    assert doc["endpoint_config"]["endpoints"] == [IN_PROCESS_ENDPOINT]
    # another seed is written as it was, and MLPerf's checker fails it
    assert config_lock(replay_benchmark_config(run_config(seed=7), "m"))["seed==42"] is False


def test_an_accuracy_run_is_mlperfs_accuracy_phase() -> None:
    config = run_config(endpoint="http://127.0.0.1:8080/v1")
    doc = accuracy_benchmark_config(config, "stub", 42)
    assert config_errors(doc) == [] and config_lock(doc) == LOCKED
    assert doc["type"] == "offline" and doc["settings"]["load_pattern"] == {
        "type": "max_throughput"}
    (dataset,) = doc["datasets"]
    assert dataset["name"] == "bfcl_v4::function_calling"
    assert dataset["accuracy_config"]["eval_method"] == "bfcl_v4"
    assert doc["endpoint_config"]["endpoints"] == ["http://127.0.0.1:8080/v1"]
    assert config_lock(accuracy_benchmark_config(config, "stub", 7))["seed==42"] is False


def write_run_files(run_dir: Path, config: dict[str, Any], model_name: str) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (run_dir / "provenance.json").write_text(json.dumps({"model": {"name": model_name}}))


def accuracy_document() -> dict[str, Any]:
    subsets = {"irrelevance_0": "irrelevance", "live_simple_0": "live_simple"}
    samples = [SampleResult(i, s, None, 0, "completed", None, "", (), "", (), False, True,
                            "no_call") for i, s in subsets.items()]
    return results_document(samples, list(subsets), {"subset_of": subsets}, None)


def test_write_results_writes_a_report_dir_mlperf_loads(tmp_path: Path) -> None:
    config = run_config(endpoint="http://127.0.0.1:8080/v1")
    del config["replay"]
    write_run_files(tmp_path, config, "served-$HOME")  # `$` survives MLPerf's env expansion
    write_results(tmp_path, accuracy_document())
    out = tmp_path / MLPERF_DIR
    doc = load(out / "config.yaml")
    assert config_errors(yaml.safe_load((out / "config.yaml").read_text())) == []
    assert config_lock(doc) == LOCKED and doc["model_params"]["name"] == "served-$HOME"
    copied = (out / MLPERF_RESULTS_FILE).read_bytes()
    assert copied == (tmp_path / MLPERF_RESULTS_FILE).read_bytes()
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        MLPERF_RESULTS_FILE, "config.yaml"]


def test_no_report_dir_without_our_config(tmp_path: Path) -> None:
    write_results(tmp_path, accuracy_document())
    assert not (tmp_path / MLPERF_DIR).exists()


class Answers(ScriptedEngine):
    """Answers each turn with its recorded command: every turn scored, none dropped."""

    def __init__(self, commands: list[str]) -> None:
        super().__init__()
        self.commands = commands

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        return json.dumps({"name": "bash", "arguments": {"command": self.commands[call]}}), \
            "stop"


@pytest.mark.slow
def test_a_replay_writes_a_report_dir_mlperf_loads(tiny_model_path: Path,
                                                   tmp_path: Path) -> None:
    dataset = FIXTURES / "mlperf_all_scored.jsonl"
    conversations = load_dataset(dataset)[:2]
    commands = [c.args["command"] for conv in conversations for row in conv.rows
                if row.role == "assistant" for c in row.tool_calls or ()]
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path),
                                "seed": 42, "max_new_tokens": 8,
                                "suite": f"replay:{dataset}"})
    engine = Answers(commands)
    run_dir = execute_replay(config, ReplaySource(str(dataset), tuple(conversations)),
                             engine_factory=lambda path, cfg: engine, progress=False).run_dir
    out = run_dir / MLPERF_DIR
    doc = load(out / "config.yaml")
    assert config_errors(doc) == [] and config_lock(doc) == LOCKED
    assert doc["datasets"][0]["path"] == str(dataset)
    assert doc["datasets"][0]["agentic_inference"]["num_trajectories_to_issue"] == 2
    assert doc["model_params"]["max_new_tokens"] == 8
    assert doc["model_params"]["name"] == "tiny-random-llama"  # a GGUF path: its stem
    assert (out / SCORES_FILE).read_bytes() == (run_dir / SCORES_FILE).read_bytes()
    turns = json.loads((out / SCORES_FILE).read_text())["turns"]
    assert turns["missing"] == 0 and turns["observed"] == turns["expected"]  # MLPerf's gate
