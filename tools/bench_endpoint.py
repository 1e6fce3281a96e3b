#!/usr/bin/env python3
"""Benchmark: the same suite in process and through an OpenAI-compatible endpoint.

    python tools/bench_endpoint.py [--model NAME|PATH] [--suite smoke] [--max-steps 4]
                                   [--threads 2] [--no-grammar] [--out DIR]
    python tools/bench_endpoint.py --interleaved [--repeats 3] [--max-tokens 48]

Starts llama-cpp-python's own server (`python -m llama_cpp.server`) on a free loopback port
with the same model, threads, context and batch as the in-process engine, runs the suite
once in process and once with `--endpoint` (the model's vocabulary as `--tokenizer`), then
compares the two run stores step by step. Steps are paired by (task, step) where both runs
saw the same prompt length, i.e. the same trajectory so far. Per paired turn it reports the
generation latency (call entry to last token), TTFT and TPOT of both paths and their
difference: the per-turn cost of serving the model over HTTP (request framing, SSE, the
server's chat formatting and, with the grammar on, its grammar sampler; see the notes this
prints). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402

from edgeagent import cli  # noqa: E402
from edgeagent.models import DEFAULT_MODEL, resolve_model  # noqa: E402
from edgeagent.rundir import open_run_db  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_cpp_server(model: Path, threads: int, n_ctx: int):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
         "--n_threads_batch", str(threads), "--n_batch", "512"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise SystemExit("llama_cpp.server exited")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/models", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit("llama_cpp.server did not start within 120 s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def run(argv: list[str], out: Path) -> Path:
    before = set(out.iterdir()) if out.exists() else set()
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([*argv, "--out", str(out)])
    if code != 0:
        raise SystemExit(f"edgeagent run failed ({code}): {argv}")
    (run_dir,) = set(out.iterdir()) - before
    return run_dir


def steps(run_dir: Path) -> tuple[dict[tuple[str, int], dict], dict[str, str]]:
    db = open_run_db(run_dir)
    try:
        rows = db.execute("SELECT * FROM steps").fetchall()
        tasks = db.execute("SELECT task_id, outcome FROM tasks").fetchall()
    finally:
        db.close()
    return {(r["task_id"], r["step"]): dict(r) for r in rows}, {t[0]: t[1] for t in tasks}


def _gen_ms(s: dict) -> float:
    return (s["t_decode_end_ns"] - s["t_start_ns"]) / 1e6


def _med(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 2) if values else None


def _mean(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return round(statistics.fmean(values), 2) if values else None


def interleaved(
    model: Path, threads: int, n_ctx: int, repeats: int, max_tokens: int, n_prompts: int,
    modes_wanted: list[str],
) -> dict:
    """Per-turn overhead on fixed agent-shaped prompts, in-process and HTTP calls alternated
    so machine noise falls on both: no grammar (transport and server framework only), and
    the tool-call grammar against both in-process grammar paths (the server uses llama.cpp's
    full-vocabulary grammar sampler, our default checks the argmax first)."""
    import importlib.util

    from edgeagent.agent.actions import action_grammar
    from edgeagent.engine.http import EndpointSettings, HttpEngine
    from edgeagent.engine.llamacpp import LlamaCppEngine
    from edgeagent.engine.llamacpp_settings import EngineSettings
    from edgeagent.sandbox.tools import TOOL_SPECS

    spec = importlib.util.spec_from_file_location(
        "bench_engine", Path(__file__).with_name("bench_engine.py"))
    assert spec is not None and spec.loader is not None
    bench_engine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_engine)
    prompts = bench_engine.prompts()[:n_prompts]
    grammar = action_grammar(TOOL_SPECS)
    local = LlamaCppEngine(model, EngineSettings(n_ctx=n_ctx, threads=threads))
    modes = {}
    with llama_cpp_server(model, threads, n_ctx) as url:
        http = HttpEngine(EndpointSettings(url=url, tokenizer=model, n_ctx=n_ctx))
        for mode, g, fast in (("none", None, True), ("fast", grammar, True),
                              ("full", grammar, False)):
            if mode not in modes_wanted:
                continue
            local.fast_grammar = fast
            pairs = []
            for _ in range(repeats):
                for messages in prompts:
                    a = local.generate(messages, max_tokens=max_tokens, grammar=g)
                    b = http.generate(messages, max_tokens=max_tokens, grammar=g)
                    pairs.append((a, b))
            gen = [((a.t_end_ns - a.t_start_ns) / 1e6, (b.t_end_ns - b.t_start_ns) / 1e6)
                   for a, b in pairs]
            modes[{"none": "no grammar", "fast": "grammar; in process: argmax checked first",
                   "full": "grammar; in process: full-vocabulary sampler"}[mode]] = {
                "turns": len(pairs),
                "same_text": sum(a.text == b.text for a, b in pairs),
                "same_counts": sum(a.context_tokens == b.context_tokens
                                   and a.decoded_tokens == b.decoded_tokens for a, b in pairs),
                "prompt_tokens": [a.context_tokens for a, _ in pairs[: len(prompts)]],
                "gen_ms_in_process": _med([x for x, _ in gen]),
                "gen_ms_endpoint": _med([y for _, y in gen]),
                "overhead_ms_per_turn": _med([y - x for x, y in gen]),
                "overhead_pct": _med([100 * (y - x) / x for x, y in gen]),
                "ttft_ms_in_process": _med([a.ttft_ms for a, _ in pairs]),
                "ttft_ms_endpoint": _med([b.ttft_ms for _, b in pairs]),
                "tpot_ms_in_process": _med([a.tpot_ms for a, _ in pairs]),
                "tpot_ms_endpoint": _med([b.tpot_ms for _, b in pairs]),
                "stream_tail_ms": _med([b.extra["request_ms"] - (b.t_end_ns - b.t_prefill_start_ns)
                                        / 1e6 for _, b in pairs]),
            }  # fmt: skip
        http.close()
    local.close()
    return {"model": str(model), "threads": threads, "repeats": repeats,
            "max_tokens": max_tokens, "modes": modes}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--suite", default="smoke")
    ap.add_argument("--max-steps", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--no-grammar", action="store_true")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--interleaved", action="store_true",
                    help="per-turn overhead on fixed prompts, calls alternated (no suite runs)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--prompts", type=int, default=4, help="first N of bench_engine's prompts")
    ap.add_argument("--modes", default="none,fast,full",
                    help="grammar modes: none, fast (argmax-first in process), full")
    args = ap.parse_args()
    model = resolve_model(args.model).path
    if args.interleaved:
        print(json.dumps(interleaved(model, args.threads, args.n_ctx, args.repeats,
                                     args.max_tokens, args.prompts, args.modes.split(",")),
                         indent=2))
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-endpoint-"))
    common = ["run", "--suite", args.suite, "--max-steps", str(args.max_steps),
              "--n-ctx", str(args.n_ctx)] + (["--no-grammar"] if args.no_grammar else [])
    local_dir = run([*common, "--model", str(model), "--threads", str(args.threads)], out)
    with llama_cpp_server(model, args.threads, args.n_ctx) as url:
        http_dir = run([*common, "--endpoint", url, "--tokenizer", str(model)], out)
    local, local_tasks = steps(local_dir)
    http, http_tasks = steps(http_dir)
    paired = [
        (local[k], http[k]) for k in sorted(local)
        if k in http and local[k]["context_tokens"] == http[k]["context_tokens"]
    ]
    same_output = sum(1 for a, b in paired if a["raw_output"] == b["raw_output"])
    rows = []
    for a, b in paired:
        rows.append({
            "task": a["task_id"], "step": a["step"], "context": a["context_tokens"],
            "decoded_local": a["decoded_tokens"], "decoded_http": b["decoded_tokens"],
            "gen_ms_local": round(_gen_ms(a), 1), "gen_ms_http": round(_gen_ms(b), 1),
            "ttft_ms_local": round(a["ttft_ms"], 1), "ttft_ms_http": round(b["ttft_ms"], 1),
            "request_ms_http": round(b["request_ms"], 1),
        })  # fmt: skip
    result = {
        "model": str(model),
        "suite": args.suite,
        "grammar": not args.no_grammar,
        "threads": args.threads,
        "run_dirs": {"in_process": str(local_dir), "endpoint": str(http_dir)},
        "outcomes": {"in_process": local_tasks, "endpoint": http_tasks},
        "steps": {"in_process": len(local), "endpoint": len(http), "paired": len(paired),
                  "paired_same_output": same_output},
        "median": {
            "gen_ms_in_process": _med([_gen_ms(a) for a, _ in paired]),
            "gen_ms_endpoint": _med([_gen_ms(b) for _, b in paired]),
            "overhead_ms_per_turn": _med([_gen_ms(b) - _gen_ms(a) for a, b in paired]),
            "ttft_ms_in_process": _med([a["ttft_ms"] for a, _ in paired]),
            "ttft_ms_endpoint": _med([b["ttft_ms"] for _, b in paired]),
            "tpot_ms_in_process": _med([a["tpot_ms"] for a, _ in paired]),
            "tpot_ms_endpoint": _med([b["tpot_ms"] for _, b in paired]),
            "request_tail_ms_endpoint": _med(
                [b["request_ms"] - (b["t_decode_end_ns"] - b["t_start_ns"]) / 1e6
                 - b["prefill_ms"] + b["ttft_ms"] for _, b in paired]),
        },
        "mean": {
            "overhead_ms_per_turn": _mean([_gen_ms(b) - _gen_ms(a) for a, b in paired]),
            "overhead_pct": _mean(
                [100 * (_gen_ms(b) - _gen_ms(a)) / _gen_ms(a) for a, b in paired]),
        },
        "turns": rows,
    }  # fmt: skip
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
