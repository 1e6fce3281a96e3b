"""The engine's thread policy (engine/threads.py) and tools/bench_contention.py's rule for
choosing it: a policy is set before llama_cpp loads unless the user set libgomp's
variables, and what held is in provenance; the bench picks the policy that loses at most 2%
alone and gains most under load."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest
from paths import ROOT

from edgeagent.engine.threads import DEFAULT_POLICY, POLICIES, POLICY_ENV, default_threads


def _bench():
    script = ROOT / "tools" / "bench_contention.py"
    spec = importlib.util.spec_from_file_location("bench_contention", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _policy_in_child(env: dict[str, str]) -> dict:
    """apply_thread_policy in a fresh interpreter (libgomp's variables are per process)."""
    code = ("import json, os\nfrom edgeagent.engine.threads import apply_thread_policy\n"
            "record = apply_thread_policy()\nimport llama_cpp\n"
            "print(json.dumps({**record, 'env_after': os.environ.get('GOMP_SPINCOUNT')}))")
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", POLICY_ENV)}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.slow
def test_the_default_policy_is_set_before_llama_cpp_loads() -> None:
    record = _policy_in_child({})
    assert record["policy"] == DEFAULT_POLICY and record["set_by"] == "edgeagent"
    assert record["environment"] == {"OMP_WAIT_POLICY": None, **dict(POLICIES[DEFAULT_POLICY].env)}


@pytest.mark.slow
def test_the_users_variables_win_and_another_policy_can_be_named() -> None:
    record = _policy_in_child({"GOMP_SPINCOUNT": "5"})
    assert record["set_by"] == "the user's environment" and record["env_after"] == "5"
    record = _policy_in_child({POLICY_ENV: "passive"})
    assert record["environment"]["OMP_WAIT_POLICY"] == "PASSIVE"


@pytest.mark.slow
def test_a_bad_policy_name_is_one_line_exit_2() -> None:
    clean = {k: v for k, v in os.environ.items() if k != POLICY_ENV}
    done = subprocess.run([sys.executable, "-m", "edgeagent.cli", "tasks", "list"],
                          env={**clean, POLICY_ENV: "fast"}, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"edgeagent: error: {POLICY_ENV}='fast' is not a thread policy; choose one of "
        + ", ".join(POLICIES)]


def test_cores_minus_one_leaves_a_core() -> None:
    cpus = len(os.sched_getaffinity(0))
    assert default_threads(POLICIES["cores-1"]) == max(1, cpus - 1)
    assert default_threads(POLICIES[DEFAULT_POLICY]) == cpus


@pytest.mark.parametrize("alone_decode, chosen", [(1.0, "b"), (0.97, "a")])
def test_the_bench_keeps_the_alone_rule(alone_decode: float, chosen: str) -> None:
    bench = _bench()
    ratios = {
        "gomp-default": {n: {"prefill_tok_s": 1.0, "decode_tok_s": 1.0} for n in (0, 1, 2)},
        "a": {0: {"prefill_tok_s": 1.0, "decode_tok_s": 0.99},
              1: {"prefill_tok_s": 1.2, "decode_tok_s": 1.2},
              2: {"prefill_tok_s": 1.2, "decode_tok_s": 1.2}},
        "b": {0: {"prefill_tok_s": 1.0, "decode_tok_s": alone_decode},
              1: {"prefill_tok_s": 2.0, "decode_tok_s": 2.0},
              2: {"prefill_tok_s": 2.0, "decode_tok_s": 2.0}},
    }
    assert bench.choose(ratios, [0, 1, 2])["policy"] == chosen
