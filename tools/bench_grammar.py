#!/usr/bin/env python3
"""Benchmark: greedy grammar decoding, argmax checked first vs the full-vocabulary sampler chain.

    python tools/bench_grammar.py [MODEL] [--max-tokens 96] [--threads N] [--free]

MODEL is a known model name or a .gguf path (default: the default model). One loaded engine
runs every agent-shaped prompt twice under the tool-call grammar: the old path
(`Llama.generate(..., grammar=...)`, whose sampler chain filters every candidate of the
vocabulary each token) and the new one (the argmax checked against the grammar alone, the
whole vocabulary filtered only when it is rejected). Both start from an empty KV cache, so
both evaluate the same batches and must produce the same token ids. The order alternates per
prompt to spread machine noise. Decode tok/s = (decoded tokens - 1) / (last token - first
token), the end-of-generation token included. A multi-turn check then runs two consecutive
steps on each path (the second prompt extends the first with the generated tokens and an
observation) and checks the KV reuse accounting. `--free` also times the same prompts without
a grammar, for reference. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from edgeagent.agent.actions import action_grammar, parse_action  # noqa: E402
from edgeagent.agent.prompt import system_prompt, task_prompt  # noqa: E402
from edgeagent.engine.base import Generation, Message  # noqa: E402
from edgeagent.engine.llamacpp import LlamaCppEngine  # noqa: E402
from edgeagent.engine.llamacpp_settings import EngineSettings  # noqa: E402
from edgeagent.models import DEFAULT_MODEL, resolve_model  # noqa: E402
from edgeagent.sandbox.tools import TOOL_SPECS  # noqa: E402

STATS = '''def median(values):
    """Return the median of a non-empty list of numbers."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return ordered[middle - 1] + ordered[middle] / 2
'''

CALC = '''def add(a, b):
    return a - b


def mul(a, b):
    return a * b
'''


def numbered(code: str) -> str:
    return "\n".join(f"{i + 1}| {line}" for i, line in enumerate(code.splitlines()))


def _task(title: str, issue: str, files: list[str]) -> list[Message]:
    return [Message("system", system_prompt(TOOL_SPECS)),
            Message("user", task_prompt(title, issue, files))]


MEDIAN = ("median() is wrong for even lists", "stats.py: median([1, 2, 3, 4]) should be 2.5.",
          ["stats.py", "tests/test_stats.py"])
ADD = ("add() subtracts", "calc.py: add(2, 3) returns -1, it should return 5.",
       ["calc.py", "tests/test_calc.py"])


def prompts() -> dict[str, list[Message]]:
    """Agent-shaped prompts: first turns and later turns with an observation."""
    read_stats = '{"name": "read_file", "arguments": {"path": "stats.py"}}'
    read_calc = '{"name": "read_file", "arguments": {"path": "calc.py"}}'
    edit_calc = ('{"name": "edit", "arguments": {"path": "calc.py", "old": "return a - b", '
                 '"new": "return a + b"}}')
    run_tests = '{"name": "run_tests", "arguments": {}}'
    return {
        "median_first": _task(*MEDIAN),
        "add_first": _task(*ADD),
        "median_after_read": _task(*MEDIAN) + [
            Message("assistant", read_stats),
            Message("user", "Result of read_file:\n" + numbered(STATS)),
        ],
        "add_after_read": _task(*ADD) + [
            Message("assistant", read_calc),
            Message("user", "Result of read_file:\n" + numbered(CALC)),
        ],
        "add_after_edit": _task(*ADD) + [
            Message("assistant", read_calc),
            Message("user", "Result of read_file:\n" + numbered(CALC)),
            Message("assistant", edit_calc),
            Message("user", "Result of edit:\nReplaced 1 occurrence in calc.py.\n\n"
                            "Now run the tests with run_tests."),
        ],
        "add_after_tests_pass": _task(*ADD) + [
            Message("assistant", read_calc),
            Message("user", "Result of read_file:\n" + numbered(CALC)),
            Message("assistant", edit_calc),
            Message("user", "Result of edit:\nReplaced 1 occurrence in calc.py."),
            Message("assistant", run_tests),
            Message("user", "Result of run_tests:\n2 passed in 0.01s\n\n"
                            "The tests pass: submit."),
        ],
        "add_after_edit_error": _task(*ADD) + [
            Message("assistant", read_calc),
            Message("user", "Result of read_file:\n" + numbered(CALC)),
            Message("assistant", '{"name": "edit", "arguments": {"path": "calc.py", '
                                 '"old": "1| return a - b", "new": "return a + b"}}'),
            Message("user", "Error from edit:\nold text not found in calc.py (copy it "
                            "exactly, without the line numbers)"),
        ],
    }


def clear_cache(engine: LlamaCppEngine) -> None:
    engine.llm.reset()
    engine.llm._ctx.kv_cache_clear()


def decode_tok_s(gen: Generation) -> float | None:
    if gen.decoded_tokens < 2 or gen.decode_ms <= 0:
        return None
    return (gen.decoded_tokens - 1) / (gen.decode_ms / 1000)


def run(engine: LlamaCppEngine, messages: list[Message], grammar: str | None, fast: bool,
        max_tokens: int) -> Generation:
    engine.fast_grammar = fast
    clear_cache(engine)
    return engine.generate(messages, max_tokens=max_tokens, grammar=grammar)


def describe(gen: Generation) -> dict:
    return {
        "decode_tok_s": round(decode_tok_s(gen) or 0.0, 2),
        "decoded_tokens": gen.decoded_tokens,
        "finish": gen.finish_reason,
        # decode wall time over llama.cpp's own eval time: what sampling + grammar add
        "decode_wall_over_eval": round(gen.decode_ms / gen.engine_decode_ms, 3)
        if gen.engine_decode_ms
        else None,
        **{k: (round(v, 2) if isinstance(v, float) else v) for k, v in gen.extra.items()},
    }


def multi_turn(engine: LlamaCppEngine, grammar: str, fast: bool, max_tokens: int) -> dict:
    engine.fast_grammar = fast
    clear_cache(engine)
    messages = _task(*ADD)
    steps = []
    prev: Generation | None = None
    observations = ["Result of read_file:\n" + numbered(CALC),
                    "Result of edit:\nReplaced 1 occurrence in calc.py."]
    for i in range(3):
        gen = engine.generate(messages, max_tokens=max_tokens, grammar=grammar)
        ok = gen.prefill_tokens == gen.context_tokens - gen.reused_tokens
        if prev is not None:
            not_evaluated = 1 if prev.finish_reason == "length" else 0
            expected = prev.context_tokens + len(prev.tokens) - not_evaluated
            ok = ok and gen.reused_tokens == expected
        else:
            expected = 0
        steps.append({"context": gen.context_tokens, "reused": gen.reused_tokens,
                      "expected_reused": expected, "prefill": gen.prefill_tokens,
                      "generated": len(gen.tokens), "finish": gen.finish_reason,
                      "accounting_ok": ok, "text": gen.text, "tokens": list(gen.tokens)})
        if i < len(observations):
            messages = messages + [Message("assistant", gen.text, tokens=gen.tokens),
                                   Message("user", observations[i])]
        prev = gen
    return {"steps": steps, "accounting_ok": all(s["accounting_ok"] for s in steps)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default=DEFAULT_MODEL)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--free", action="store_true", help="also time decoding without a grammar")
    args = ap.parse_args()

    model = resolve_model(args.model, progress=False)
    engine = LlamaCppEngine(model.path, EngineSettings(n_ctx=args.n_ctx, threads=args.threads))
    grammar = action_grammar(TOOL_SPECS)
    # warm-up: page the weights in
    run(engine, _task(*ADD), grammar, True, 4)

    rows = []
    for i, (name, messages) in enumerate(prompts().items()):
        gens: dict[str, Generation] = {}
        for fast in ((False, True) if i % 2 == 0 else (True, False)):
            gens["new" if fast else "old"] = run(engine, messages, grammar, fast,
                                                 args.max_tokens)
        old, new = gens["old"], gens["new"]
        row = {
            "prompt": name,
            "prompt_tokens": new.context_tokens,
            "identical": old.tokens == new.tokens and old.finish_reason == new.finish_reason,
            "text": new.text,
            "parses": not hasattr(parse_action(new.text, TOOL_SPECS), "message"),
            "old": describe(old),
            "new": describe(new),
        }
        if args.free:
            row["free"] = describe(run(engine, messages, None, True, args.max_tokens))
        rows.append(row)

    def median_of(path: str) -> float:
        return statistics.median(r[path]["decode_tok_s"] for r in rows)

    turns = {"old": multi_turn(engine, grammar, False, args.max_tokens),
             "new": multi_turn(engine, grammar, True, args.max_tokens)}
    turns_identical = [a["tokens"] for a in turns["old"]["steps"]] == [
        b["tokens"] for b in turns["new"]["steps"]]
    for t in turns.values():
        for s in t["steps"]:
            del s["tokens"]

    checks = sum(r["new"].get("grammar_checks", 0) for r in rows)
    rejections = sum(r["new"].get("grammar_rejections", 0) for r in rows)
    result = {
        "benchmark": "greedy grammar decoding: argmax checked first (new) vs Llama.generate (old)",
        "model": {"name": model.name, "path": str(model.path)},
        "threads": engine.n_threads,
        "max_tokens": args.max_tokens,
        "prompts": rows,
        "all_identical": all(r["identical"] for r in rows),
        "decode_tok_s_median": {"old": round(median_of("old"), 2),
                                "new": round(median_of("new"), 2),
                                **({"free": round(median_of("free"), 2)} if args.free else {})},
        "grammar_checks": checks,
        "grammar_rejections": rejections,
        "rejection_rate": round(rejections / checks, 4) if checks else None,
        "multi_turn": {"identical": turns_identical,
                       "accounting_ok": turns["old"]["accounting_ok"]
                       and turns["new"]["accounting_ok"], **turns},
    }
    print(json.dumps(result, indent=2))
    return 0 if result["all_identical"] and result["multi_turn"]["accounting_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
