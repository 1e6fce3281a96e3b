#!/usr/bin/env python3
"""Benchmark: the engine's prefill and decode speed alone and beside busy neighbours, for each
thread policy (edgeagent/engine/threads.py), to choose the default by measurement.

    python tools/bench_contention.py [MODEL] [--policies a,b] [--neighbours 0,1,2]
        [--rounds 2] [--repeats 3] [--out FILE]

Each (policy, neighbours) cell is a fresh child process (libgomp reads its wait policy when
llama_cpp loads), with EDGEAGENT_THREAD_POLICY naming the policy and its threads the
policy's default; a neighbour is `python -c "while True: pass"`, started before the child
and killed after it. The child loads the model through our engine, then `--repeats` times
from an empty KV cache: a ~50-token chat prompt prefilled and 32 tokens decoded greedily,
timed by the engine (prefill tok/s = prompt tokens / prefill time, decode tok/s =
(tokens - 1) / decode time); the cell's figure is the median. Rounds run the cells in
alternating order (ABBA over the whole grid) to spread drift over every policy. Prints one
JSON object: the cells, each policy's ratio to libgomp's defaults alone and under load, and
the policy chosen by the rule in docs/interference.md. Run it alone on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from edgeagent.engine.threads import DEFAULT_POLICY, POLICIES, POLICY_ENV  # noqa: E402

BASE = "gomp-default"
ALONE_LOSS_MAX = 0.02  # a default may lose at most this much alone (the rule)
PROMPT = "Write a Python function that returns the n-th Fibonacci number, with a docstring."


def child(model: str, repeats: int) -> dict:
    """In the child: load, warm up, then time `repeats` cold-cache generations."""
    from edgeagent.engine.base import Message
    from edgeagent.engine.llamacpp import LlamaCppEngine
    from edgeagent.engine.llamacpp_settings import EngineSettings
    from edgeagent.models import resolve_model

    engine = LlamaCppEngine(resolve_model(model).path, EngineSettings(n_ctx=1024))
    messages = [Message("user", PROMPT)]
    prefill, decode = [], []
    for i in range(repeats + 1):
        engine.llm.reset()
        engine.llm._ctx.kv_cache_clear()
        gen = engine.generate(messages, max_tokens=32)
        if i == 0:
            continue  # warm-up: page faults, first-use allocations
        prefill.append(gen.prefill_tokens / (gen.prefill_ms / 1000))
        decode.append((gen.decoded_tokens - 1) / (gen.decode_ms / 1000))
    return {"prefill_tok_s": statistics.median(prefill), "decode_tok_s": statistics.median(decode),
            "prefill_runs": prefill, "decode_runs": decode,
            "threads": engine.n_threads, "thread_policy": engine.thread_policy,
            "prompt_tokens": gen.prefill_tokens, "decoded_tokens": gen.decoded_tokens}


def run_cell(model: str, policy: str, neighbours: int, repeats: int) -> dict:
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(neighbours)]
    try:
        time.sleep(0.3 if busy else 0)  # the neighbours running before the model loads
        env = {**os.environ, POLICY_ENV: policy}
        for key in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):
            env.pop(key, None)  # the policy's own, not the caller's
        out = subprocess.run(
            [sys.executable, __file__, "--child", model, "--repeats", str(repeats)],
            env=env, capture_output=True, text=True, timeout=600, check=True)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    return {"policy": policy, "neighbours": neighbours, **json.loads(out.stdout)}


def summarise(cells: list[dict], policies: list[str], loads: list[int]) -> dict:
    """Per policy and load: the median over rounds, and its ratio to libgomp's defaults."""
    def med(policy: str, n: int, key: str) -> float:
        return statistics.median(c[key] for c in cells
                                 if c["policy"] == policy and c["neighbours"] == n)

    table = {p: {n: {k: med(p, n, k) for k in ("prefill_tok_s", "decode_tok_s")}
                 for n in loads} for p in policies}
    ratios = {p: {n: {k: table[p][n][k] / table[BASE][n][k] for k in table[p][n]}
                  for n in loads} for p in policies} if BASE in policies else {}
    return {"table": table, "ratio_to_gomp_default": ratios, "chosen": choose(ratios, loads)}


def choose(ratios: dict, loads: list[int]) -> dict:
    """The policy that gains most under load (mean decode and prefill ratio over the loaded
    cells) among those that lose at most ALONE_LOSS_MAX alone in both phases."""
    if not ratios or 0 not in loads or len(loads) < 2:
        return {"policy": None, "why": "needs gomp-default and 0 plus a loaded neighbour count"}
    fair = {p: r for p, r in ratios.items()
            if min(r[0].values()) >= 1 - ALONE_LOSS_MAX}
    gain = {p: statistics.mean(v for n in loads if n for v in r[n].values())
            for p, r in fair.items()}
    best = max(gain, key=gain.get)
    return {"policy": best, "loaded_gain": gain[best], "alone": ratios[best][0],
            "eligible": sorted(fair), "rule": f"loses <= {ALONE_LOSS_MAX:.0%} alone in "
            "prefill and decode; the largest mean ratio under load"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default="qwen2.5-coder-0.5b-instruct-q4_k_m")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--neighbours", default="0,1,2")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.model, args.repeats)))
        return 0
    policies = args.policies.split(",")
    loads = [int(n) for n in args.neighbours.split(",")]
    grid = [(p, n) for n in loads for p in policies]
    cells = []
    for r in range(args.rounds):
        for p, n in (grid if r % 2 == 0 else grid[::-1]):
            cell = run_cell(args.model, p, n, args.repeats)
            cells.append({**cell, "round": r})
            print(f"round {r} {p:<13} neighbours {n}: prefill {cell['prefill_tok_s']:7.1f} "
                  f"decode {cell['decode_tok_s']:6.1f} tok/s", file=sys.stderr)
    result = {"model": args.model, "cpus": os.cpu_count(), "rounds": args.rounds,
              "repeats": args.repeats, "default_policy_in_code": DEFAULT_POLICY,
              "cells": cells, **summarise(cells, policies, loads)}
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
