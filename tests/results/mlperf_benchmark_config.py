"""A hand-written check of the rules MLPerf's config schema applies to a report directory's
config.yaml, and of its checker's config-lock, for the tests of RUN_DIR/mlperf/.

NOT MLPerf's own validation: MLPerf's package (Python 3.12, not on PyPI) cannot be installed
here. The rules are read from mlcommons/endpoints: src/inference_endpoint/config/schema.py
(`BenchmarkConfig`, its validators and `from_yaml_file`), config/datasets.py,
config/model_params.py, config/settings.py, config/enums.py, config/utils.py
(`resolve_env_vars`), endpoint_client/config.py (`HTTPClientConfig`) at 0b6c8dd1 and bb8833b7,
and compliance/checker.py (`check_config_lock`) at bf9d12b1. Every model there is
`extra="forbid"`, so a key it does not know fails the load: the keys allowed here are the
ones every version read has (stricter than any one version), which is what our file must
keep to.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

TOP_KEYS = {"name", "version", "type", "submission_ref", "benchmark_mode", "model_params",
            "datasets", "settings", "endpoint_config", "report_dir", "verbose",
            "enable_cpu_affinity"}
TEST_TYPES = {"offline", "online", "eval", "submission"}
MODEL_KEYS = {"name", "temperature", "seed", "top_k", "top_p", "repetition_penalty",
              "max_new_tokens", "osl_distribution", "streaming", "tokenizer_name"}
DATASET_KEYS = {"name", "type", "path", "format", "samples", "eval_method", "parser",
                "accuracy_config", "agentic_inference"}
ACCURACY_KEYS = {"eval_method", "ground_truth", "extractor", "num_repeats"}
SCORERS = {"pass_at_1", "string_match", "rouge", "code_bench_scorer", "shopify_category_f1",
           "agentic_inference_inline", "vbench", "bfcl_v4", "legacy_mlperf_deepseek_r1"}
AGENTIC_KEYS = {"turn_timeout_s", "enable_salt", "inject_tool_delay",
                "num_trajectories_to_issue", "stop_issuing_on_first_user_complete"}
SETTINGS_KEYS = {"runtime", "load_pattern", "client", "warmup", "profiling"}
RUNTIME_KEYS = {"n_samples_to_issue", "scheduler_random_seed", "dataloader_random_seed"}
LOAD_KEYS = {"type", "target_qps", "target_concurrency"}
LOAD_TYPES = {"max_throughput", "poisson", "concurrency", "agentic_inference", "burst", "step"}
CLIENT_KEYS = {"num_workers", "max_connections", "warmup_connections"}
ENDPOINT_KEYS = {"endpoints", "api_key", "api_type"}
# config/utils.py: `${VAR}`, `${VAR:-x}` and `$VAR` not after a `$` are expanded on load
_ENV_REF = re.compile(r"(?<!\$)\$\{([A-Za-z_]\w*)(?::-(.*?))?\}|(?<!\$)\$([A-Za-z_]\w*)")


def _extra(where: str, data: Any, allowed: set[str]) -> list[str]:
    if not isinstance(data, dict):
        return [f"{where}: not a mapping"]
    return [f"{where}.{k}: extra key (extra='forbid')" for k in sorted(set(data) - allowed)]


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _env_errors(value: Any, where: str = "") -> list[str]:
    if isinstance(value, str):
        return [f"{where}: `{m.group(0)}` is expanded on load" for m in _ENV_REF.finditer(value)]
    if isinstance(value, dict):
        return [e for k, v in value.items() for e in _env_errors(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [e for i, v in enumerate(value) for e in _env_errors(v, f"{where}[{i}]")]
    return []


def _model_errors(mp: Any) -> list[str]:
    errors = _extra("model_params", mp, MODEL_KEYS)
    if errors:
        return errors
    if not isinstance(mp.get("name"), str) or not mp["name"].strip():
        errors.append("model_params.name: required (Required: --model-params.name)")
    if "temperature" in mp and not isinstance(mp["temperature"], (int, float)):
        errors.append("model_params.temperature: not a number")
    if mp.get("seed") is not None and not _int(mp["seed"]):
        errors.append("model_params.seed: not an int")
    if "max_new_tokens" in mp and not (_int(mp["max_new_tokens"]) and mp["max_new_tokens"] >= 1):
        errors.append("model_params.max_new_tokens: an int >= min_new_tokens (1)")
    return errors


def _agentic_errors(where: str, agentic: Any) -> list[str]:
    errors = _extra(where, agentic, AGENTIC_KEYS)
    if errors:
        return errors
    timeout = agentic.get("turn_timeout_s", 86400.0)
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        errors.append(f"{where}.turn_timeout_s: a number > 0")
    n = agentic.get("num_trajectories_to_issue")
    if n is not None and not (_int(n) and n > 0):
        errors.append(f"{where}.num_trajectories_to_issue: an int > 0")
    return errors


def _dataset_errors(i: int, ds: Any) -> list[str]:
    where = f"datasets[{i}]"
    errors = _extra(where, ds, DATASET_KEYS)
    if errors:
        return errors
    if ds.get("type", "performance") not in ("performance", "accuracy"):
        errors.append(f"{where}.type: not performance/accuracy")
    acc = ds.get("accuracy_config")
    if acc is not None:
        errors += _extra(f"{where}.accuracy_config", acc, ACCURACY_KEYS)
        if isinstance(acc, dict) and acc.get("eval_method") not in SCORERS | {None}:
            errors.append(f"{where}.accuracy_config.eval_method: not a ScorerMethod")
        if isinstance(acc, dict) and not (_int(acc.get("num_repeats", 1))
                                          and acc.get("num_repeats", 1) >= 1):
            errors.append(f"{where}.accuracy_config.num_repeats: an int >= 1")
    if ds.get("agentic_inference") is not None:
        errors += _agentic_errors(f"{where}.agentic_inference", ds["agentic_inference"])
    return errors


def _settings_errors(settings: Any) -> list[str]:
    errors = _extra("settings", settings, SETTINGS_KEYS)
    if errors:
        return errors
    errors += _extra("settings.runtime", settings.get("runtime", {}), RUNTIME_KEYS)
    lp = settings.get("load_pattern", {})
    errors += _extra("settings.load_pattern", lp, LOAD_KEYS)
    if isinstance(lp, dict):
        kind = lp.get("type", "max_throughput")
        if kind not in LOAD_TYPES:
            errors.append("settings.load_pattern.type: not a LoadPatternType")
        if kind == "poisson" and not (lp.get("target_qps") or 0) > 0:
            errors.append("settings.load_pattern: poisson requires target_qps")
        if kind in ("concurrency", "agentic_inference") and not (
                _int(lp.get("target_concurrency")) and lp["target_concurrency"] > 0):
            errors.append(f"settings.load_pattern: {kind} requires target_concurrency > 0")
    client = settings.get("client", {})
    errors += _extra("settings.client", client, CLIENT_KEYS)
    if isinstance(client, dict):
        for key in ("num_workers", "max_connections"):
            value = client.get(key, -1)
            if not (_int(value) and value >= -1 and value != 0):
                errors.append(f"settings.client.{key}: -1 (auto) or >= 1")
    return errors


def _endpoint_errors(ep: Any) -> list[str]:
    if ep is None:
        return ["endpoint_config: required"]
    errors = _extra("endpoint_config", ep, ENDPOINT_KEYS)
    if errors:
        return errors
    urls = ep.get("endpoints")
    if not isinstance(urls, list) or not urls:
        return ["endpoint_config.endpoints: a list of at least 1 URL"]
    errors += [f"endpoint_config.endpoints: {u!r} has no http(s) scheme" for u in urls
               if not (isinstance(u, str) and u.startswith(("http://", "https://")))]
    if ep.get("api_type", "openai") != "openai":
        errors.append("endpoint_config.api_type: only openai is checked here")
    return errors


def _cross_errors(doc: dict[str, Any]) -> list[str]:
    """BenchmarkConfig._resolve_and_validate's cross-model rules."""
    errors = []
    kind = doc.get("type")
    mode = doc.get("benchmark_mode") if kind == "submission" else kind
    if kind == "submission" and not mode:
        errors.append("submission configs must specify benchmark_mode")
    settings = doc.get("settings") or {}
    lp = settings.get("load_pattern") or {}
    pattern = lp.get("type", "max_throughput")
    if mode == "offline" and pattern != "max_throughput":
        errors.append("offline benchmarks must use max_throughput")
    if mode == "online" and pattern not in ("poisson", "concurrency", "agentic_inference"):
        errors.append("online mode requires poisson, concurrency or agentic_inference")
    datasets = doc.get("datasets") or []
    pairs = [(d.get("name"), d.get("type", "performance")) for d in datasets]
    if len(pairs) != len(set(pairs)):
        errors.append("duplicate dataset (name, type)")
    perf_agentic = any(d.get("agentic_inference") is not None and
                       d.get("type", "performance") == "performance" for d in datasets)
    if any(d.get("agentic_inference") is not None and d.get("type") == "accuracy"
           for d in datasets):
        errors.append("agentic_inference only on performance datasets")
    if pattern == "agentic_inference" and not perf_agentic:
        errors.append("agentic_inference load pattern requires the dataset's block")
    if perf_agentic and pattern != "agentic_inference":
        errors.append("a dataset's agentic_inference block requires that load pattern")
    if pattern == "agentic_inference" and (settings.get("runtime") or {}).get(
            "n_samples_to_issue") is not None:
        errors.append("n_samples_to_issue is not supported for agentic inference")
    return errors


def config_errors(doc: Any) -> list[str]:
    """Why MLPerf's `BenchmarkConfig.from_yaml_file` would refuse this parsed config.yaml
    (empty: these rules accept it)."""
    if not isinstance(doc, dict):
        return ["Expected YAML mapping"]
    errors = _env_errors(doc) + _extra("", doc, TOP_KEYS)
    if doc.get("type") not in TEST_TYPES:
        errors.append("type: required, one of offline/online/eval/submission")
    errors += _model_errors(doc.get("model_params", {"name": ""}))
    datasets = doc.get("datasets", [])
    if not isinstance(datasets, list):
        return errors + ["datasets: not a list"]
    for i, ds in enumerate(datasets):
        errors += _dataset_errors(i, ds)
    errors += _settings_errors(doc.get("settings", {}))
    errors += _endpoint_errors(doc.get("endpoint_config"))
    return errors or _cross_errors(doc)


def load(path: Path) -> dict[str, Any]:
    """The config as MLPerf's loader reads it: yaml.safe_load, then `$$` back to `$`."""
    def unescape(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("$$", "$")
        if isinstance(value, dict):
            return {k: unescape(v) for k, v in value.items()}
        if isinstance(value, list):
            return [unescape(v) for v in value]
        return value
    return unescape(yaml.safe_load(Path(path).read_text(encoding="utf-8")))


def config_lock(doc: dict[str, Any]) -> dict[str, bool]:
    """checker.py `check_config_lock` on the model_dump() of the loaded config: the
    schema's defaults filled in (dataloader_random_seed 42, model seed None, client -1)."""
    mp = doc.get("model_params") or {}
    settings = doc.get("settings") or {}
    seeds = {"model_params.seed": mp.get("seed"),
             "dataloader_random_seed": (settings.get("runtime") or {}).get(
                 "dataloader_random_seed", 42)}
    set_seeds = {k: v for k, v in seeds.items() if v is not None}
    client = settings.get("client") or {}
    single = client.get("num_workers", -1) == 1 and client.get("max_connections", -1) == 1
    concurrency = (settings.get("load_pattern") or {}).get("target_concurrency")
    if concurrency is not None:
        single = single and concurrency == 1
    return {"temperature==0": mp.get("temperature") == 0,
            "seed==42": bool(set_seeds) and all(v == 42 for v in set_seeds.values()),
            "single_stream": single}
