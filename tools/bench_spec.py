#!/usr/bin/env python3
"""Benchmark: speculative decoding (prompt lookup, draft model) against plain greedy decoding.

    python tools/bench_spec.py [MODEL] [--draft MODEL] [--repeats 1] [--threads N]
                               [--edit-tokens 160] [--free-tokens 96] [--spec-ngram 3]
                               [--spec-max-draft 8]

MODEL is a known model name or a .gguf path (default: the default model). Two workloads:
- edit: the file is in the context and the model rewrites it whole with one change, as plain
  text and as a write_file tool call under the action grammar (most output copies context);
- free: prose answers that copy little from the context.
Each prompt is decoded by every mode from an empty KV cache (so all evaluate the same prompt
batches); the order of the modes rotates per repeat to spread machine noise. Decode tok/s =
(decoded tokens - 1) / (last token - first token); decode tok/CPU-s divides by this process's
CPU time instead, which other processes on a shared machine barely change when llama.cpp
runs one thread (--threads 1): report both. The speedup of a mode is the median over
prompts and repeats of its decode tok/s over plain decoding's in the same repeat; `identical`
says whether every token matched plain greedy's. `--draft` adds the draft-model proposer
(the draft must share the target's tokenizer). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from edgeagent.agent.actions import action_grammar  # noqa: E402
from edgeagent.agent.prompt import system_prompt  # noqa: E402
from edgeagent.engine.base import Generation, Message  # noqa: E402
from edgeagent.engine.llamacpp import LlamaCppEngine  # noqa: E402
from edgeagent.engine.llamacpp_settings import EngineSettings  # noqa: E402
from edgeagent.engine.speculative import (  # noqa: E402
    DraftModel,
    PromptLookup,
    Speculator,
)
from edgeagent.models import DEFAULT_MODEL, resolve_model  # noqa: E402
from edgeagent.sandbox.tools import TOOL_SPECS  # noqa: E402

INVENTORY = '''"""A tiny inventory of items with prices and quantities."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0

    def total(self) -> float:
        return self.price * self.quantity


class Inventory:
    def __init__(self) -> None:
        self.items: dict[str, Item] = {}

    def add(self, item: Item) -> None:
        if item.name in self.items:
            self.items[item.name].quantity += item.quantity
        else:
            self.items[item.name] = item

    def remove(self, name: str, quantity: int) -> None:
        item = self.items[name]
        item.quantity -= quantity
        if item.quantity <= 0:
            del self.items[name]

    def value(self) -> float:
        return sum(item.total() for item in self.items.values())
'''

STATS = '''def mean(values):
    """Return the arithmetic mean of a non-empty list of numbers."""
    return sum(values) / len(values)


def median(values):
    """Return the median of a non-empty list of numbers."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return ordered[middle - 1] + ordered[middle] / 2


def variance(values):
    """Return the population variance of a non-empty list of numbers."""
    m = mean(values)
    return sum((v - m) ** 2 for v in values) / len(values)
'''

EDITS = [
    ("inventory.py", INVENTORY, "In remove(), raise KeyError with a clear message when the "
     "name is missing instead of failing on the dict lookup."),
    ("stats.py", STATS, "median() is wrong for even lists: the last return must divide the "
     "sum of the two middle values by 2."),
]

FREE = [
    "In three short paragraphs, explain to a new team member why code review matters and "
    "how to give kind, useful feedback.",
    "Describe a walk through an autumn forest at dawn: the light, the sounds, the smells.",
    "What are the trade-offs between SQLite and PostgreSQL for a small web application? "
    "Answer in prose, without lists or code.",
]


def workloads() -> list[tuple[str, str, list[Message], bool]]:
    """(workload, prompt name, messages, under the action grammar)."""
    out: list[tuple[str, str, list[Message], bool]] = []
    for path, code, change in EDITS:
        out.append(("edit", f"{path}:text", [
            Message("system", "You are a careful programmer. Reply with the complete "
                    "updated file only, without explanations or markdown fences."),
            Message("user", f"File {path}:\n{code}\nMake this change and output the whole "
                    f"file: {change}"),
        ], False))
        out.append(("edit", f"{path}:write_file", [
            Message("system", system_prompt(TOOL_SPECS)),
            Message("user", f"Issue: {change}\n\nFiles in the repository: {path}"),
            Message("assistant", f'{{"name": "read_file", "arguments": {{"path": "{path}"}}}}'),
            Message("user", f"Result of read_file:\n{code}\nRewrite the whole file with the "
                    "fix using write_file."),
        ], True))
    for i, question in enumerate(FREE):
        out.append(("free", f"free-{i}", [
            Message("system", "You are a helpful assistant."),
            Message("user", question),
        ], False))
    return out


def clear_cache(engine: LlamaCppEngine) -> None:
    engine.llm.reset()
    engine.llm._ctx.kv_cache_clear()


def decode_tok_s(gen: Generation) -> float | None:
    if gen.decoded_tokens < 2 or gen.decode_ms <= 0:
        return None
    return (gen.decoded_tokens - 1) / (gen.decode_ms / 1000)


def decode_tok_cpu_s(gen: Generation) -> float | None:
    cpu_ms = gen.decode_cpu_ms
    if gen.decoded_tokens < 2 or not cpu_ms:
        return None
    return (gen.decoded_tokens - 1) / (cpu_ms / 1000)


def describe(gen: Generation) -> dict[str, Any]:
    return {
        "decode_tok_s": round(decode_tok_s(gen) or 0.0, 2),
        # tokens per CPU-second of this process: robust to other load with --threads 1
        "decode_tok_cpu_s": round(decode_tok_cpu_s(gen) or 0.0, 2),
        "decoded_tokens": gen.decoded_tokens,
        "decode_ms": round(gen.decode_ms, 1),
        "finish": gen.finish_reason,
        "drafted": gen.spec_drafted,
        "accepted": gen.spec_accepted,
        "acceptance": round(gen.extra["spec_acceptance"], 3)
        if gen.extra.get("spec_acceptance") is not None else None,
        # plain decoding takes one target pass per token after the first
        "target_passes": gen.extra.get("spec_target_passes", gen.decoded_tokens - 1),
        "propose_ms": round(gen.extra["spec_propose_ms"], 1)
        if "spec_propose_ms" in gen.extra else None,
        "reevaluated": gen.extra.get("spec_reevaluated"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?", default=DEFAULT_MODEL)
    ap.add_argument("--draft", help="draft model (same tokenizer) for the draft proposer")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--edit-tokens", type=int, default=160)
    ap.add_argument("--free-tokens", type=int, default=96)
    ap.add_argument("--spec-ngram", type=int, default=3)
    ap.add_argument("--spec-max-draft", type=int, default=8)
    ap.add_argument("--only", choices=["edit", "free"], help="run one workload only")
    ap.add_argument("--fixed", action="store_true",
                    help="also run prompt lookup verifying every draft (no cost model)")
    args = ap.parse_args()

    model = resolve_model(args.model, progress=False)
    engine = LlamaCppEngine(model.path, EngineSettings(n_ctx=args.n_ctx, threads=args.threads))
    modes: dict[str, Speculator | None] = {
        "off": None,
        "prompt-lookup": Speculator(PromptLookup(args.spec_ngram), args.spec_max_draft),
    }
    if args.fixed:
        modes["prompt-lookup-fixed"] = Speculator(
            PromptLookup(args.spec_ngram), args.spec_max_draft, adaptive=False)
    draft_note = None
    if args.draft:
        draft = resolve_model(args.draft, progress=False)
        modes["draft"] = Speculator(DraftModel(draft.path, engine), args.spec_max_draft)
        draft_note = str(draft.path)
    grammar = action_grammar(TOOL_SPECS)
    # warm-up: page the weights in
    clear_cache(engine)
    engine.generate([Message("user", "hi")], max_tokens=4)

    names = list(modes)
    rows = []
    for rep in range(args.repeats):
        for i, (workload, name, messages, constrained) in enumerate(workloads()):
            if args.only and workload != args.only:
                continue
            max_tokens = args.edit_tokens if workload == "edit" else args.free_tokens
            k = (rep + i) % len(names)
            gens: dict[str, Generation] = {}
            for mode in names[k:] + names[:k]:
                engine.speculator = modes[mode]
                clear_cache(engine)
                gens[mode] = engine.generate(messages, max_tokens=max_tokens,
                                             grammar=grammar if constrained else None)
            engine.speculator = None
            base = gens["off"]
            row: dict[str, Any] = {"workload": workload, "prompt": name, "repeat": rep,
                                   "grammar": constrained, "prompt_tokens": base.context_tokens}
            for mode, gen in gens.items():
                d = describe(gen)
                if mode != "off":
                    d["identical"] = gen.tokens == base.tokens
                    ours, plain = decode_tok_s(gen), decode_tok_s(base)
                    d["speedup"] = round(ours / plain, 3) if ours and plain else None
                    ours, plain = decode_tok_cpu_s(gen), decode_tok_cpu_s(base)
                    d["speedup_cpu"] = round(ours / plain, 3) if ours and plain else None
                row[mode] = d
            if rep == 0:
                row["text_head"] = base.text[:120]
            rows.append(row)
            print(json.dumps({k2: row[k2] for k2 in ("prompt", "repeat")}
                             | {m: (row[m]["decode_tok_s"], row[m].get("speedup"),
                                    row[m].get("speedup_cpu"), row[m].get("identical"))
                                for m in names}), file=sys.stderr)

    summary: dict[str, Any] = {}
    for workload in ("edit", "free"):
        wrows = [r for r in rows if r["workload"] == workload]
        if not wrows:
            continue
        s: dict[str, Any] = {
            "off_decode_tok_s_median": round(
                statistics.median(r["off"]["decode_tok_s"] for r in wrows), 2),
            "off_decode_tok_cpu_s_median": round(
                statistics.median(r["off"]["decode_tok_cpu_s"] for r in wrows), 2),
        }
        for mode in names[1:]:
            drafted = sum(r[mode]["drafted"] or 0 for r in wrows)
            accepted = sum(r[mode]["accepted"] or 0 for r in wrows)
            speedups = [r[mode]["speedup"] for r in wrows if r[mode]["speedup"]]
            cpu_speedups = [r[mode]["speedup_cpu"] for r in wrows if r[mode]["speedup_cpu"]]
            s[mode] = {
                "decode_tok_s_median": round(
                    statistics.median(r[mode]["decode_tok_s"] for r in wrows), 2),
                "speedup_median": round(statistics.median(speedups), 3) if speedups else None,
                "speedup_cpu_median": round(statistics.median(cpu_speedups), 3)
                if cpu_speedups else None,
                "identical": all(r[mode]["identical"] for r in wrows),
                "drafted": drafted,
                "accepted": accepted,
                "acceptance": round(accepted / drafted, 3) if drafted else None,
                "target_passes": sum(r[mode]["target_passes"] for r in wrows),
                "decoded_tokens": sum(r[mode]["decoded_tokens"] for r in wrows),
            }
        summary[workload] = s
    result = {
        "benchmark": "speculative decoding vs plain greedy decoding",
        "model": {"name": model.name, "path": str(model.path)},
        "draft_model": draft_note,
        "draft_model_note": None if draft_note else (
            "no draft GGUF with the target's tokenizer given (--draft); the draft proposer "
            "is tested on the tiny model with itself as draft (tests/test_speculative.py)"),
        "threads": engine.n_threads,
        "spec_ngram": args.spec_ngram,
        "spec_max_draft": args.spec_max_draft,
        "edit_tokens": args.edit_tokens,
        "free_tokens": args.free_tokens,
        "repeats": args.repeats,
        "summary": summary,
        "load_average": list(os.getloadavg()),
        "targets": {"edit speedup": ">= 1.8 with identical output",
                    "free speedup": ">= 0.97"},
        "prompts": rows,
    }
    print(json.dumps(result, indent=2))
    for spec in modes.values():
        if spec is not None:
            spec.close()
    engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
