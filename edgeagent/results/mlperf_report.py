"""RUN_DIR/mlperf/: the run as a report directory of MLPerf's own shape, for its checker.

MLPerf's compliance checker (mlcommons/endpoints src/inference_endpoint/compliance/checker.py
`check_submission(report_dir)`, commit bf9d12b105a833c1bfeb3365efce091b6bc93a15) reads three
files of a report directory: `config.yaml`, loaded through its schema
(`BenchmarkConfig.from_yaml_file`: pydantic, every model `extra="forbid"`, the `type` key
choosing the offline/online model), `scores.json` (a performance run) and
`accuracy/accuracy_results.json` (an accuracy run). Our run directory's config.yaml is our
own RunConfig, which that schema refuses, so a run also writes `mlperf/` beside its files:
a config.yaml in MLPerf's schema holding the run's actual settings, and copies of the
scorer file MLPerf reads (scores.json, or accuracy/accuracy_results.json).

The config uses only fields present in every version of the schema read (config/schema.py,
datasets.py, model_params.py, settings.py, endpoint_client/config.py at 0b6c8dd1 and
bb8833b7) and in MLPerf's own valid configs (examples/11_Edge_Agentic_Example/
online_edge_full_run.yaml; the schema-valid config of tests/unit/compliance/
test_checker.py at 626b9623): no runtime durations (they moved between `runtime` and
`timeouts` across versions), no `generate_params` (`params` in earlier versions), no
`api_key` (an `${VAR}` there is resolved on load and fails the load when unset).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from ..rundir import CONFIG_FILE, MLPERF_DIR, read_provenance
from .accuracy_run import DATASET_NAME

# MLPerf's schema requires at least one http(s) endpoint; an in-process engine has none, so
# the name says so in a reserved TLD (RFC 2606) that can never resolve or be mistaken for one
IN_PROCESS_ENDPOINT = "http://in-process.invalid"
# MLPerf's BFCL accuracy block as its edge config fixes it ("do not change")
BFCL_ACCURACY_CONFIG = {"eval_method": "bfcl_v4", "ground_truth": "ground_truth",
                        "extractor": "function_call_extractor", "num_repeats": 1}
# one request in flight, as every edgeagent run issues them (MLPerf's single stream)
SINGLE_STREAM_CLIENT = {"num_workers": 1, "max_connections": 1}


def read_run_config(run_dir: Path) -> dict[str, Any] | None:
    """Our config.yaml (RunConfig, plus `replay` for a replay); None if the run has none."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError:
        return None  # a torn config.yaml: `check` reports it; no MLPerf copy of nothing
    return data if isinstance(data, dict) else None


def served_model_name(run_dir: Path, config: Mapping[str, Any]) -> str:
    """The model's name as MLPerf's `model_params.name` means it (the served name): the one
    provenance.json recorded (a server's answer, or the known model's), else the config's."""
    try:
        provenance = read_provenance(Path(run_dir))
    except (OSError, ValueError):
        provenance = None
    name = provenance.model.get("name") if provenance is not None else None
    if name or config.get("served_model"):
        return str(name or config["served_model"])
    # a GGUF given by path has no name: its file's stem, as the run directory's label
    model_arg = str(config.get("model") or "unknown")
    is_path = "/" in model_arg or model_arg.endswith(".gguf")
    return Path(model_arg).stem if is_path else model_arg


def _endpoint(config: Mapping[str, Any]) -> str:
    url = config.get("endpoint")
    if not url:
        return IN_PROCESS_ENDPOINT
    return url if str(url).startswith(("http://", "https://")) else f"http://{url}"


def _setting(config: Mapping[str, Any], key: str, default: float) -> float:
    # a key our config.yaml holds as null (unset) reads as its RunConfig default
    value = config.get(key)
    return default if value is None else float(value)


def _model_params(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    return {"name": name, "temperature": _setting(config, "temperature", 0.0),
            "seed": int(_setting(config, "seed", 0)),
            "max_new_tokens": int(_setting(config, "max_new_tokens", 1024))}


def _document(name: str, test_type: str, model_params: dict[str, Any],
              dataset: dict[str, Any], settings: dict[str, Any],
              endpoint: str) -> dict[str, Any]:
    return {"name": name, "version": "1.0", "type": test_type, "model_params": model_params,
            "datasets": [dataset], "settings": settings,
            "endpoint_config": {"endpoints": [endpoint], "api_type": "openai"}}


def replay_benchmark_config(config: Mapping[str, Any], model_name: str) -> dict[str, Any]:
    """A replay as MLPerf's performance phase: `type: online`, load pattern
    `agentic_inference` at the concurrency the replay recorded, the dataset with its
    `agentic_inference` block (the schema requires the two together) and the inline scorer."""
    replay = config.get("replay") or {}
    source = str(replay.get("source") or "replay")
    agentic: dict[str, Any] = {"turn_timeout_s": _setting(config, "turn_timeout_s", 600.0),
                               "inject_tool_delay": bool(replay.get("inject_tool_delay"))}
    if replay.get("conversations"):
        agentic["num_trajectories_to_issue"] = len(replay["conversations"])
    dataset = {"name": Path(source).stem or "replay", "type": "performance", "path": source,
               "accuracy_config": {"eval_method": "agentic_inference_inline"},
               "agentic_inference": agentic}
    # a replay issues its conversations in the dataset's order: no RNG, which is MLPerf's
    # default seed's meaning too; written out since its checker gates on it
    settings = {"runtime": {"dataloader_random_seed": 42},
                "load_pattern": {"type": "agentic_inference",
                                 "target_concurrency": int(replay.get("concurrency") or 1)},
                "client": dict(SINGLE_STREAM_CLIENT)}
    return _document("edgeagent-replay", "online", _model_params(config, model_name), dataset,
                     settings, _endpoint(config))


def accuracy_benchmark_config(config: Mapping[str, Any], model_name: str,
                              sampling_seed: int) -> dict[str, Any]:
    """An accuracy run as MLPerf's accuracy phase alone: `type: offline`, `max_throughput`
    (MLPerf runs that phase at max_throughput whatever the performance pattern), the BFCL
    dataset and scorer, the sampling's dataloader seed, one worker and one connection."""
    dataset = {"name": DATASET_NAME, "type": "accuracy",
               "accuracy_config": dict(BFCL_ACCURACY_CONFIG)}
    settings = {"runtime": {"dataloader_random_seed": int(sampling_seed)},
                "load_pattern": {"type": "max_throughput"},
                "client": dict(SINGLE_STREAM_CLIENT)}
    return _document("edgeagent-accuracy", "offline", _model_params(config, model_name),
                     dataset, settings, _endpoint(config))


def _escaped(value: Any) -> Any:
    """Every `$` doubled: MLPerf's loader expands `$VAR`/`${VAR}` in every string (failing on
    an unset one) and turns `$$` back into `$`, so a path or name keeps its dollar signs."""
    if isinstance(value, str):
        return value.replace("$", "$$")
    if isinstance(value, dict):
        return {k: _escaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    return value


def write_report_dir(run_dir: Path, benchmark_config: Mapping[str, Any],
                     files: Iterable[str]) -> Path:
    """RUN_DIR/mlperf/ with MLPerf's config.yaml and a copy of each of `files` (paths
    relative to the run directory, kept relative under mlperf/); returns the folder."""
    out = Path(run_dir) / MLPERF_DIR
    out.mkdir(exist_ok=True)
    (out / CONFIG_FILE).write_text(
        yaml.safe_dump(_escaped(dict(benchmark_config)), sort_keys=False, allow_unicode=True),
        encoding="utf-8")
    for name in files:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(run_dir) / name, target)
    return out


def write_replay_report(run_dir: Path, scores_file: str) -> Path | None:
    """mlperf/ of a replay (None without our config.yaml: nothing to describe it with)."""
    config = read_run_config(run_dir)
    if config is None:
        return None
    doc = replay_benchmark_config(config, served_model_name(run_dir, config))
    return write_report_dir(run_dir, doc, (scores_file,))


def write_accuracy_report(run_dir: Path, results_file: str,
                          sampling_seed: int) -> Path | None:
    """mlperf/ of an accuracy run (None without our config.yaml)."""
    config = read_run_config(run_dir)
    if config is None:
        return None
    doc = accuracy_benchmark_config(config, served_model_name(run_dir, config), sampling_seed)
    return write_report_dir(run_dir, doc, (results_file,))
