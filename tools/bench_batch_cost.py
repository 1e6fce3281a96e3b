"""What verifying k drafted tokens costs on this machine: one llama.cpp batch of k tokens, with
logits at all k (as speculative verification needs), against k one-token steps.

    python tools/bench_batch_cost.py [--model GGUF ...] [--threads 2] [--sizes 1,2,4,8,16]
        [--repeats 15] [--requantize Q4_0] [--context 400] [--flash-attn on|off]
        [--kv-type f16|q8_0]

Speculative decoding pays only where a k-token batch costs much less than k single steps
(memory-bound decode). `--requantize TYPE` also measures a copy of the first model
requantized with llama.cpp's own quantizer (into a temporary directory), to see whether the
quantisation format's batched kernels change that. `--context N` fills the cache to about N
tokens first: at long context a one-token step reads the whole KV cache, so a batch shares
that read (MLPerf's agentic turns run at 10-18k). Output: one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROMPT = "def add(a, b):\n    return a + b\n\n" * 40  # ~400 tokens of cached context


def requantize(src: Path, dst: Path, ftype_name: str, threads: int) -> None:
    import llama_cpp as lc

    ftype = getattr(lc, f"LLAMA_FTYPE_MOSTLY_{ftype_name.upper()}", None)
    if ftype is None:
        sys.exit(f"--requantize {ftype_name}: llama.cpp has no LLAMA_FTYPE_MOSTLY_{ftype_name}")
    params = lc.llama_model_quantize_default_params()
    params.ftype = ftype
    params.allow_requantize = True
    params.nthread = threads
    rc = lc.llama_model_quantize(str(src).encode(), str(dst).encode(), ctypes.byref(params))
    if rc != 0:
        sys.exit(f"llama_model_quantize({src} -> {ftype_name}) failed with {rc}")


def measure(model: Path, threads: int, sizes: list[int], repeats: int,
            cache: dict[str, Any]) -> dict[str, Any]:
    from llama_cpp import Llama

    from edgeagent.engine import GGML_TYPES
    from edgeagent.engine.speculative import eval_with_logits, rollback

    kv = GGML_TYPES[cache["kv_type"]]
    llm = Llama(model_path=str(model), n_ctx=cache["context"] + max(sizes) + 512, n_batch=512,
                n_threads=threads, n_threads_batch=threads, flash_attn=cache["flash_attn"],
                type_k=kv, type_v=kv, verbose=False)
    one = llm.tokenize(PROMPT.encode())
    context = (one * (cache["context"] // len(one) + 1))[:max(cache["context"], 8)]
    t0 = time.perf_counter()
    llm.eval(context)
    fill_s = time.perf_counter() - t0
    keep = llm.n_tokens
    filler = llm.tokenize(b" x = 1" * (max(sizes) // 4 + 10), add_bos=False)
    ms: dict[int, list[float]] = {k: [] for k in sizes}
    for _ in range(repeats):
        for k in sizes:  # interleaved, so drift in machine load spreads over every size
            t0 = time.perf_counter()
            eval_with_logits(llm, filler[:k])
            ms[k].append((time.perf_counter() - t0) * 1000.0)
            rollback(llm, keep)
    single = statistics.median(ms[1]) if 1 in ms else None
    rows = []
    for k in sizes:
        med = statistics.median(ms[k])
        rows.append({
            "tokens": k,
            "batch_ms_median": round(med, 2),
            "ms_per_token": round(med / k, 2),
            "vs_k_single_steps": round(med / (k * single), 3) if single else None,
        })
    return {"model": model.name, "size_mb": round(model.stat().st_size / 1e6, 1),
            "context_tokens": keep, "fill_tok_s": round(keep / fill_s, 1), **cache,
            "rows": rows}


def main() -> int:
    from edgeagent.engine import GGML_TYPES
    from edgeagent.models import DEFAULT_MODEL, resolve_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sizes", default="1,2,4,8,16")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--requantize", default=None, metavar="TYPE")
    parser.add_argument("--context", type=int, default=400, help="tokens in the cache first")
    parser.add_argument("--flash-attn", choices=("on", "off"), default="off")
    parser.add_argument("--kv-type", choices=tuple(GGML_TYPES), default="f16")
    args = parser.parse_args()
    if args.kv_type != "f16" and args.flash_attn == "off":
        parser.error(f"--kv-type {args.kv_type}: a quantized V cache needs --flash-attn on")
    cache = {"context": args.context, "flash_attn": args.flash_attn == "on",
             "kv_type": args.kv_type}
    sizes = sorted({int(s) for s in args.sizes.split(",")} | {1})
    models = args.model or [resolve_model(DEFAULT_MODEL, progress=False).path]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.requantize:
            dst = Path(tmp) / f"{models[0].stem}.requant-{args.requantize.lower()}.gguf"
            requantize(models[0], dst, args.requantize, args.threads)
            models = [*models, dst]
        for model in models:
            results.append(measure(model, args.threads, sizes, args.repeats, cache))
    print(json.dumps({
        "bench": "batch_cost", "threads": args.threads, "repeats": args.repeats,
        "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
        "load_average_1m": os.getloadavg()[0], "results": results,
    }, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
