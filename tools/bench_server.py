#!/usr/bin/env python3
"""Benchmark: the same replay in process and through the C++ llama-server (issue 23).

    python tools/bench_server.py [--serve] [--model NAME|PATH] [--threads 2]
        [--n-ctx 8192] [--seed 0] [--max-new-tokens 256] [--turns 32]
        [--datasets smoke,synthetic] [--conversations N|IDS] [--server PATH]
        [--server-first] [--tool-format text|native|auto] [--out DIR]
        [--serve-only] [--repeats N] [--long]

MLPerf's Edge Agentic reference serves the model with llama.cpp's C++ `llama-server` and an
HTTP client. This runs `edgeagent replay` on each dataset twice, metered the same way (the
same run directory, meter and per-turn records): once in process, then with `--endpoint` against
a `llama-server` built by tools/build_llama_server.py from the llama.cpp commit the installed
llama-cpp-python vendors, started with one slot (`-np 1`), the prompt cache on (the endpoint
engine sends `cache_prompt`), the same context size, threads, batch sizes, seed and flash
attention setting as the in-process engine. Only one model process runs at a time: the server
starts after the in-process replay has finished and stops before the next dataset.

Tool format (`--tool-format`, passed to both replays; default `auto`, replay's own default:
native where the template has a tool-call family, as MLPerf renders its turns). Both paths
decode under the very same GBNF: in text format the endpoint engine sends ours as `grammar`;
natively llama-server gets the dataset's `tools` (its template renders them), `tool_choice:
"none"` and our native-call GBNF, because it does not enforce `tool_choice: "required"`
(ggml-org/llama.cpp#27217: with it, the default model wrote bare JSON calls to the 256-token
budget on every turn, measured 2026-12-01). `target_met` is true only where every paired turn
has equal prompt and output token counts and the p50 ratio is <= 0.95.

With `--serve`, each dataset is also replayed through `edgeagent serve` (the in-process engine
behind our OpenAI endpoint, started with the same settings) by the same endpoint client that
drives llama-server, and `edgeagent_serve` in summary.json compares the two per request
(target: p50 ratio <= 1.0 with equal token counts on every paired turn). `--serve-only`
compares just those two, `--repeats` times each in ABBA order (server, serve, serve,
server, ...) so that a machine drifting slower or faster favours neither; the ratio is of the
pooled turn latencies' medians, with each repeat's own ratio beside it. Without
`--serve-only`, `--repeats 2` (or more) does the same for the in-process replay against
llama-server (target 0.95); the default, 1, runs each once (in process first).

`--long` (issue 53) measures MLPerf's own workload instead of forcing both sides to one set
of settings: both replays run with `--mlperf` (temperature 0, seed 42, 1,024 new tokens),
in process at edgeagent's defaults, and through `llama-server` started with MLPerf's
reference flags (REFERENCE_FLAGS, from mlcommons/endpoints' Edge Agentic README) and its own
defaults for the rest; the dataset defaults to the shared MLPerf performance-phase JSONL and
the cut to two whole conversations past 16k tokens (LONG_CONVERSATIONS). ABBA, `--repeats 2`
by default. The target: the cut's wall and the pooled turn-latency p50, each <= 0.95x the
server's; the tokens may differ (the defaults differ), so where each conversation's texts
part is reported, with both sides' inline scores.

Datasets: `smoke` (the bundled tasks/replay/smoke.jsonl) and `synthetic`, an MLPerf-format
conversation of `--turns` assistant turns (32 by default) generated here, deterministically,
with our agent's system prompt and tools and tool results of realistic size; it is written to
OUT/datasets/ so it can be replayed again. A path to any MLPerf agentic JSONL works too.

Writes, under OUT (default: a new temporary directory):
  <dataset>/in_process/<run>/     <dataset>/llama_server/<run>/   run directories:
                                  `edgeagent compare A B` prints them side by side
  <dataset>/llama-server.log      the server's own log
  summary.json                    per dataset and path: turn latency p50/p90, TTFT, TPOT,
                                  prefill and decode tok/s, paired turns with equal token
                                  counts, the p50 latency ratio (target <= 0.95) and where
                                  the time goes (HTTP/server framing vs the model, sampling)
and prints summary.json and the compare commands.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import io
import json
import re
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402

from edgeagent import cli  # noqa: E402
from edgeagent.engine.llama_server import (  # noqa: E402
    BUILD_COMMAND,
    find_llama_server,
    server_version,
)
from edgeagent.models import DEFAULT_MODEL, resolve_model  # noqa: E402
from edgeagent.replay import load_dataset  # noqa: E402
from edgeagent.replay.synthetic import synthetic_rows  # noqa: E402
from edgeagent.run import default_dataset  # noqa: E402

TARGET_RATIO = 0.95  # issue 23: in-process p50 turn latency <= 0.95x llama-server's
N_BATCH = 512  # the in-process engine's n_batch (= n_ubatch); the server gets the same
REPO = Path(__file__).resolve().parent.parent
# --long: MLPerf v6.1 Edge Agentic's performance-phase dataset and its reference server
MLPERF_DATASET = REPO.parent / "shared" / "data" / "mlperf" / "agentic_coding_2.5h.jsonl"
# mlcommons/endpoints examples/11_Edge_Agentic_Example/README.md (2d71c91), "Start the server
# (matches the validated reproducibility runs)"; everything else is llama-server's own default
# (threads, batch sizes, KV types). `--n-gpu-layers 99` offloads nothing on a CPU-only build.
REFERENCE_FLAGS = ("--ctx-size", "32768", "-np", "1", "--reasoning", "off", "--flash-attn", "on",
                   "--n-gpu-layers", "99", "--seed", "42")
# two whole conversations whose contexts pass 16k tokens with the default model's tokenizer,
# the two shortest in wall of the 2026-12-05 whole-phase run (max ISL 17,286 and 18,294)
LONG_CONVERSATIONS = "django__django-16899,pytest-dev__pytest-10081"


# -- the synthetic MLPerf-format conversation (edgeagent/replay/synthetic.py) ---------------


def synthetic_conversation(turns: int, seed: int = 0) -> list[dict[str, Any]]:
    """One conversation of `turns` assistant turns in MLPerf's JSONL schema, with the system
    prompt and tools of the bundled smoke workload (the workload issue 23 measured)."""
    first = json.loads(default_dataset().read_text().splitlines()[0])
    return synthetic_rows(turns, seed, system=first["system"], tools=first["tools"])


def write_synthetic(path: Path, turns: int, seed: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in synthetic_conversation(turns, seed)))
    load_dataset(path)  # the replay's own loader checks every row
    return path


# -- llama-server ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(binary: Path, model: Path, port: int, args: argparse.Namespace) -> list[str]:
    """llama-server with the in-process engine's settings forced on it, or with --long
    MLPerf's reference flags and its own defaults."""
    where = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    if args.long:
        return [*where, *REFERENCE_FLAGS]
    return [*where, "-c", str(args.n_ctx), "-t", str(args.threads), "-tb", str(args.threads),
            "-np", "1", "-b", str(N_BATCH), "-ub", str(N_BATCH), "-fa", "off",
            "--seed", str(args.seed), "--jinja", "--cache-prompt"]  # fmt: skip


@contextlib.contextmanager
def _server_process(cmd: list[str], port: int, log: Path, name: str, stop: signal.Signals):
    """Start a server, wait for its /health, yield its /v1 URL; stop it with `stop`."""
    with open(log, "w") as log_file:
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180
            while True:
                if proc.poll() is not None:
                    raise SystemExit(f"{name} exited with {proc.returncode}; see {log}")
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(base + "/health", timeout=2).status_code == 200:
                        break
                if time.monotonic() > deadline:
                    raise SystemExit(f"{name} did not get ready within 180 s; see {log}")
                time.sleep(0.3)
            yield base + "/v1"
        finally:
            proc.send_signal(stop)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextlib.contextmanager
def llama_server(binary: Path, model: Path, args: argparse.Namespace, log: Path):
    port = _free_port()
    cmd = server_command(binary, model, port, args)
    with _server_process(cmd, port, log, "llama-server", signal.SIGTERM) as url:
        yield url, cmd


@contextlib.contextmanager
def edgeagent_serve(model: Path, threads: int, n_ctx: int, seed: int, out: Path, log: Path):
    """`edgeagent serve` on a free port with the in-process engine's settings; its own run
    directory (every request a step) lands under `out`; SIGINT stops it cleanly."""
    port = _free_port()
    cmd = [sys.executable, "-m", "edgeagent.cli", "serve", "--model", str(model),
           "--port", str(port), "--threads", str(threads), "--n-ctx", str(n_ctx),
           "--seed", str(seed), "--flash-attn", "off", "--out", str(out)]  # fmt: skip
    with _server_process(cmd, port, log, "edgeagent serve", signal.SIGINT) as url:
        yield url, cmd


# -- runs and their numbers --------------------------------------------------------------


def replay(argv: list[str], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    before = set(out.iterdir())
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        code = cli.main(["replay", *argv, "--out", str(out)])
    if code != 0:
        raise SystemExit(f"edgeagent replay failed ({code}): {argv}\n{printed.getvalue()}")
    (run_dir,) = set(out.iterdir()) - before
    return run_dir


def _steps(run_dir: Path) -> dict[tuple[str, int], dict]:
    db = sqlite3.connect(run_dir / "run.db")
    db.row_factory = sqlite3.Row
    try:
        rows = db.execute("SELECT * FROM steps").fetchall()
    finally:
        db.close()
    return {(r["task_id"], r["step"]): dict(r) for r in rows}


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(x, nd)


def _med(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return _r(statistics.median(vals)) if vals else None


def _rate(tokens: list[int | None], ms: list[float | None]) -> float | None:
    pairs = [(t, m) for t, m in zip(tokens, ms, strict=True) if t is not None and m]
    total_ms = sum(m for _, m in pairs)
    return _r(1000 * sum(t for t, _ in pairs) / total_ms, 1) if total_ms else None


def path_numbers(run_dir: Path) -> dict:
    """One path's numbers: the replay summary's own percentiles, plus rates from its steps."""
    summary = json.loads((run_dir / "result_summary.json").read_text())
    steps = list(_steps(run_dir).values())
    served = [s for s in steps if s["server_prompt_tokens"] is not None]
    return {
        "run_dir": str(run_dir),
        "result": summary.get("result"),
        "wall_s": _r(summary.get("duration_s")),
        "turns_completed": summary.get("turns_completed"),
        "turns_dropped": summary.get("turns_dropped"),
        **{f"{k}_{p}": _r(summary[k][p]) if summary.get(k) else None
           for k in ("latency_ms", "ttft_ms", "tpot_ms") for p in ("p50", "p90")},
        "prefill_tok_s": _rate([s["prefill_tokens"] for s in steps],
                               [s["prefill_ms"] for s in steps]),
        "decode_tok_s": _rate([s["decoded_tokens"] for s in steps],
                              [s["decode_ms"] for s in steps]),
        "reused_tokens_total": sum(s["reused_tokens"] or 0 for s in steps),
        "prefill_tokens_total": sum(s["prefill_tokens"] or 0 for s in steps),
        # new tokens each turn had to prefill: ours past the reused prefix; the server's,
        # its prompt minus its cache_n (the same number by construction, shown both ways)
        "prefilled_tokens_per_turn_mean": _r(statistics.mean(
            s["prefill_tokens"] or 0 for s in steps), 1) if steps else None,
        "server_prompt_minus_cache_n_per_turn_mean": _r(statistics.mean(
            s["server_prompt_tokens"] - (s["server_cached_tokens"] or 0) for s in served), 1)
        if served else None,
        "decoded_tokens_total": sum(s["decoded_tokens"] or 0 for s in steps),
        "inline_score": summary.get("inline_score"),
        "energy_per_turn_mJ": summary.get("energy_per_turn_mJ"),
        "energy_null_reason": summary.get("energy_null_reason"),
    }


def _gen_ms(s: dict) -> float:
    return (s["t_decode_end_ns"] - s["t_start_ns"]) / 1e6


def compare_paths(local_dir: Path, server_dir: Path, label: str = "in_process",
                  own_dir: Path | None = None) -> dict:
    """Turn by turn (conversation, step): equal token counts, and where the time goes.

    `label` names the first path's figures. Through `edgeagent serve` the first path is the
    client's replay, whose sampling column would be the client's decode wall minus serve's
    reported decode (transport, not sampling): `own_dir`, serve's own run directory, gives the
    sampling and grammar time serve recorded for each request instead."""
    local, server = _steps(local_dir), _steps(server_dir)
    own = list(_steps(own_dir if own_dir is not None else local_dir).values())
    keys = sorted(set(local) & set(server))
    pairs = [(local[k], server[k]) for k in keys]
    equal_prompt = sum(a["context_tokens"] == b["context_tokens"] for a, b in pairs)
    equal_decoded = sum(a["decoded_tokens"] == b["decoded_tokens"] for a, b in pairs)
    same_text = sum(a["raw_output"] == b["raw_output"] for a, b in pairs)
    unequal = [{"conversation": a["task_id"], "step": a["step"],
                "context_tokens": [a["context_tokens"], b["context_tokens"]],
                "decoded_tokens": [a["decoded_tokens"], b["decoded_tokens"]]}
               for a, b in pairs if (a["context_tokens"], a["decoded_tokens"])
               != (b["context_tokens"], b["decoded_tokens"])][:20]  # fmt: skip
    first_divergent: dict[str, int | None] = {}
    for a, b in pairs:
        first_divergent.setdefault(a["task_id"], None)
        if a["raw_output"] != b["raw_output"] and first_divergent[a["task_id"]] is None:
            first_divergent[a["task_id"]] = a["step"]
    return {
        "paired_turns": len(pairs),
        "turns_only_in_one_path": len(set(local) ^ set(server)),
        "equal_prompt_tokens": equal_prompt,
        "equal_decoded_tokens": equal_decoded,
        "token_counts_equal": bool(pairs) and equal_prompt == equal_decoded == len(pairs),
        "same_generated_text": same_text,
        "first_divergent_turn": first_divergent,  # per conversation; None: all the same
        "unequal_turns_first_20": unequal,
        "where_the_time_goes_ms_p50": {
            # our path: call entry to last token minus model prefill and decode = template
            # rendering, tokenisation, KV prefix bookkeeping (through serve: as its client
            # sees it); sampling (incl. grammar) apart, from our engine's own record
            f"{label}_outside_model": _med([_gen_ms(a) - (a["prefill_ms"] or 0)
                                            - (a["decode_ms"] or 0) for a, _ in pairs]),
            f"{label}_sampling": _med([a["sample_ms"] for a in own]),
            f"{label}_prefill": _med([a["prefill_ms"] for a, _ in pairs]),
            f"{label}_decode": _med([a["decode_ms"] for a, _ in pairs]),
            # through the server: the client's request time minus the server's own model time =
            # HTTP, SSE, the server's chat template, tokenisation and grammar setup
            "server_request": _med([b["request_ms"] for _, b in pairs]),
            "server_prefill": _med([b["server_prefill_ms"] for _, b in pairs]),
            "server_decode": _med([b["server_decode_ms"] for _, b in pairs]),
            "server_outside_model": _med([
                b["request_ms"] - b["server_prefill_ms"] - b["server_decode_ms"]
                for _, b in pairs if None not in (b["request_ms"], b["server_prefill_ms"],
                                                  b["server_decode_ms"])]),
            "server_cached_tokens_total": sum(b["server_cached_tokens"] or 0 for _, b in pairs),
        },
    }


def bench_dataset(name: str, dataset: Path, out: Path, args: argparse.Namespace, model: Path,
                  binary: Path) -> dict:
    if args.long:  # MLPerf's run settings; each side otherwise at its own defaults
        common = [str(dataset), "--mlperf"]
        threads: list[str] = []
    else:
        common = [str(dataset), "--n-ctx", str(args.n_ctx), "--seed", str(args.seed),
                  "--max-new-tokens", str(args.max_new_tokens),
                  "--tool-format", args.tool_format, "--flash-attn", "off"]  # fmt: skip
        threads = ["--threads", str(args.threads)]
    if args.conversations:
        common += ["--conversations", args.conversations]
    (out / name).mkdir(parents=True, exist_ok=True)

    def in_process() -> Path:
        print(f"[{name}] in process ...", file=sys.stderr, flush=True)
        return replay([*common, "--model", str(model), *threads], out / name / "in_process")

    def through_server() -> tuple[Path, list[str]]:
        print(f"[{name}] llama-server ...", file=sys.stderr, flush=True)
        with llama_server(binary, model, args, out / name / "llama-server.log") as (url, cmd):
            return replay([*common, "--endpoint", url, "--tokenizer", str(model),
                           "--model", str(model), *threads],
                          out / name / "llama_server"), cmd  # fmt: skip

    def through_serve() -> tuple[Path, Path]:
        """(the client's replay through serve, serve's own run directory)"""
        print(f"[{name}] edgeagent serve ...", file=sys.stderr, flush=True)
        own_runs = out / name / "serve_runs"
        before = set(own_runs.iterdir()) if own_runs.is_dir() else set()
        with edgeagent_serve(model, args.threads, args.n_ctx, args.seed,
                             own_runs, out / name / "serve.log") as (url, _):
            client = replay([*common, "--endpoint", url, "--tokenizer", str(model),
                             "--model", str(model), "--threads", str(args.threads)],
                            out / name / "edgeagent_serve")  # fmt: skip
        (own,) = set(own_runs.iterdir()) - before
        return client, own

    if args.long:
        return long_result(_abba(args.repeats or 2, IN_PROCESS_PATH, through_server,
                                 lambda: (in_process(), None)), out / name) | {
            "dataset": str(dataset), "conversations": args.conversations}
    if args.serve_only:
        return _abba(args.repeats or 2, SERVE_PATH, through_server, through_serve)
    if (args.repeats or 1) > 1:
        return _abba(args.repeats, IN_PROCESS_PATH, through_server,
                     lambda: (in_process(), None)) | {"dataset": str(dataset)}
    if args.server_first:  # to see whether the order (warm page cache, load drift) matters
        server_dir, cmd = through_server()
        local_dir = in_process()
    else:
        local_dir = in_process()
        server_dir, cmd = through_server()
    result = _paths_result(local_dir, server_dir, cmd, args, dataset)
    if args.serve:
        result["edgeagent_serve"] = _serve_result(*through_serve(), server_dir)
    return result


@dataclass(frozen=True)
class _OurPath:
    """How the ABBA summary names one of our paths against llama-server."""

    label: str  # the short name in pooled figures and where the time goes
    runs_key: str  # the key of its per-run numbers
    target: float


SERVE_PATH = _OurPath("serve", "edgeagent_serve", 1.0)
IN_PROCESS_PATH = _OurPath("in_process", "in_process", TARGET_RATIO)


def _abba(repeats: int, ours: _OurPath, through_server: Callable[[], tuple[Path, list[str]]],
          run_ours: Callable[[], tuple[Path, Path | None]]) -> dict:
    """One of our paths against llama-server, `repeats` times in ABBA order (server then ours,
    then ours then server, ...), so that a machine that drifts slower or faster over the
    minutes favours neither path; the ratio is of the pooled turn latencies' medians.
    `run_ours` returns the replay's run directory and, through serve, serve's own."""
    server_dirs: list[Path] = []
    our_dirs: list[tuple[Path, Path | None]] = []
    order: list[str] = []
    for r in range(repeats):
        for path in (("llama-server", ours.label) if r % 2 == 0
                     else (ours.label, "llama-server")):
            order.append(path)
            if path == ours.label:
                our_dirs.append(run_ours())
            else:
                server_dirs.append(through_server()[0])
    replays = [d for d, _ in our_dirs]
    # each path's steps over its repeats, read once for the pooled medians
    steps = {name: [s for d in dirs for s in _steps(d).values()]
             for name, dirs in ((ours.label, replays), ("llama_server", server_dirs))}
    pooled = {name: statistics.median(_gen_ms(s) for s in rows) for name, rows in steps.items()}
    pooled_ttft_tpot = {name: {key: _med([s[key] for s in rows]) for key in ("ttft_ms", "tpot_ms")}
                        for name, rows in steps.items()}
    pairs = [compare_paths(a, b, ours.label, own)
             for (a, own), b in zip(our_dirs, server_dirs, strict=True)]
    equal = all(p["token_counts_equal"] for p in pairs)
    ratio = pooled[ours.label] / pooled["llama_server"] if pooled["llama_server"] else None
    numbers = [path_numbers(d) for d in replays]
    server_numbers = [path_numbers(d) for d in server_dirs]
    return {
        "order": order,
        "llama_server": server_numbers,
        ours.runs_key: numbers,
        "turn_latency_ms_p50_pooled": {k: _r(v) for k, v in pooled.items()},
        "ttft_tpot_ms_p50_pooled": pooled_ttft_tpot,
        f"latency_p50_ratio_{ours.label}_vs_server": _r(ratio, 3),
        "ratio_per_repeat": [_r(a["latency_ms_p50"] / b["latency_ms_p50"], 3)
                             for a, b in zip(numbers, server_numbers, strict=True)],
        "target_ratio": ours.target,
        "target_met": None if ratio is None else bool(equal and ratio <= ours.target),
        "token_counts_equal_every_repeat": equal,
        "turns": pairs[0],
        "turns_every_repeat": pairs,
    }


def long_result(abba: dict, out: Path) -> dict:
    """--long: both ratios (wall of the cut, pooled turn-latency p50) against the target.
    Tokens need not match: the two sides run their own defaults (flash attention, batch
    sizes), so `turns.first_divergent_turn` says where each conversation's texts part."""
    walls = {key: [n["wall_s"] for n in abba[key]] for key in ("in_process", "llama_server")}
    total = {key: _r(sum(v)) if None not in v else None for key, v in walls.items()}
    wall_ratio = (total["in_process"] / total["llama_server"]
                  if total["in_process"] and total["llama_server"] else None)
    p50_ratio = abba["latency_p50_ratio_in_process_vs_server"]
    ratios = (wall_ratio, p50_ratio)
    return abba | {
        "wall_s_total": total,
        "wall_ratio_in_process_vs_server": _r(wall_ratio, 3),
        "wall_ratio_per_repeat": [_r(a / b, 3) if a and b else None
                                  for a, b in zip(*walls.values(), strict=True)],
        "target_met": None if None in ratios else all(r <= TARGET_RATIO for r in ratios),
        "target_note": "wall and turn-latency p50 ratios both <= 0.95; the generated tokens "
                       "may differ between the sides (see turns.first_divergent_turn)",
        "inline_scores": {key: [n["inline_score"] for n in abba[key]]
                          for key in ("in_process", "llama_server")},
        "server_threads": _server_threads(out / "llama-server.log"),
    }


def _server_threads(log: Path) -> int | None:
    """The threads llama-server chose by its own default, as its log says ("llama threadpool
    init, n_threads = 2")."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return None
    found = re.search(r"threadpool init, n_threads = (\d+)", text)
    return int(found.group(1)) if found else None


def _serve_result(serve_dir: Path, own_dir: Path, server_dir: Path) -> dict:
    """`edgeagent serve` against llama-server, both through the same endpoint client."""
    served, server = path_numbers(serve_dir), path_numbers(server_dir)
    ratio = (served["latency_ms_p50"] / server["latency_ms_p50"]
             if served["latency_ms_p50"] and server["latency_ms_p50"] else None)
    turns = compare_paths(serve_dir, server_dir, "serve", own_dir)
    return {
        "path": served,
        "latency_p50_ratio_serve_vs_server": _r(ratio, 3),
        "target_ratio": 1.0,
        "target_met": None if ratio is None else bool(turns["token_counts_equal"]
                                                      and ratio <= 1.0),
        "turns": turns,
        "compare_command": f"edgeagent compare {serve_dir} {server_dir}",
    }


def _paths_result(local_dir: Path, server_dir: Path, cmd: list[str], args: argparse.Namespace,
                  dataset: Path) -> dict:
    local, server = path_numbers(local_dir), path_numbers(server_dir)
    ratio = (local["latency_ms_p50"] / server["latency_ms_p50"]
             if local["latency_ms_p50"] and server["latency_ms_p50"] else None)
    turns = compare_paths(local_dir, server_dir)
    # the latency target counts only where both paths did the same work: a server that
    # decodes other (or more) tokens than the in-process engine is not beaten by being faster
    same_work = turns["token_counts_equal"]
    return {
        "dataset": str(dataset),
        "in_process": local,
        "llama_server": server,
        "server_command": cmd,
        "order": "llama-server first" if args.server_first else "in process first",
        "latency_p50_ratio_in_process_vs_server": _r(ratio, 3),
        "target_ratio": TARGET_RATIO,
        "target_met": None if ratio is None else bool(same_work and ratio <= TARGET_RATIO),
        "target_note": None if same_work else (
            "token counts differ between the paths, so the latencies are not comparable "
            "and the target is not met; see turns.unequal_turns_first_20"),
        "turns": turns,
        "compare_command": f"edgeagent compare {local_dir} {server_dir}",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=DEFAULT_MODEL, help="known model name or .gguf path")
    ap.add_argument("--threads", type=int, default=2,
                    help="both sides' threads (not with --long: each side its default)")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-new-tokens", type=int, default=256)
    ap.add_argument("--turns", type=int, default=32, help="assistant turns of the synthetic "
                    "conversation (at least 30 for issue 23)")
    ap.add_argument("--datasets", default="smoke,synthetic",
                    help="comma-separated: smoke, synthetic, or MLPerf agentic JSONL paths")
    ap.add_argument("--conversations", metavar="N|IDS", help="passed to edgeagent replay")
    ap.add_argument("--server", type=Path, help=f"llama-server binary (default: the one "
                    f"`{BUILD_COMMAND}` cached for this llama-cpp-python)")
    ap.add_argument("--server-first", action="store_true",
                    help="replay through llama-server before the in-process run")
    ap.add_argument("--tool-format", choices=("auto", "native", "text"), default="auto",
                    help="passed to both replays (default auto: native where the template has "
                    "a tool-call family); either way both paths decode under the same GBNF")
    ap.add_argument("--serve", action="store_true",
                    help="also replay through `edgeagent serve` (the in-process engine behind "
                    "our OpenAI endpoint) and compare it with llama-server (target <= 1.0)")
    ap.add_argument("--serve-only", action="store_true",
                    help="only llama-server against `edgeagent serve` (no in-process replay), "
                    "--repeats times each in ABBA order")
    ap.add_argument("--repeats", type=int,
                    help="replays per path, alternating which goes first (2: server, ours, "
                    "ours, server); default 2 with --serve-only, else 1 (in process, then "
                    "server, or --server-first)")
    ap.add_argument("--long", action="store_true",
                    help="MLPerf's own long turns: --datasets defaults to the shared MLPerf "
                    f"dataset and --conversations to {LONG_CONVERSATIONS}; both replays with "
                    "--mlperf, in process at our defaults, llama-server with MLPerf's "
                    "reference flags and its own defaults; ABBA, --repeats 2 by default; "
                    "target: wall and turn-latency p50 ratios <= 0.95")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.long:
        if args.serve or args.serve_only or args.server_first:
            ap.error("--long compares in process with llama-server only (ABBA): drop "
                     "--serve, --serve-only and --server-first")
        args.datasets = str(MLPERF_DATASET) if args.datasets == "smoke,synthetic" else (
            args.datasets)
        args.conversations = args.conversations or LONG_CONVERSATIONS
    if args.repeats is not None and args.repeats < 1:
        ap.error(f"--repeats {args.repeats}: give 1 or more replays per path")

    binary = args.server or find_llama_server()
    if binary is None:
        raise SystemExit(f"no llama-server built for llama-cpp-python "
                         f"{importlib.metadata.version('llama_cpp_python')}: run {BUILD_COMMAND}")
    model = resolve_model(args.model).path
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-server-"))
    out.mkdir(parents=True, exist_ok=True)
    datasets: dict[str, Path] = {}
    for name in args.datasets.split(","):
        if name == "smoke":
            datasets[name] = default_dataset()
        elif name == "synthetic":
            datasets[f"synthetic-{args.turns}"] = write_synthetic(
                out / "datasets" / f"synthetic-mlperf-{args.turns}.jsonl", args.turns, args.seed)
        else:
            datasets[Path(name).stem] = Path(name)
    summary = {
        "model": str(model),
        "llama_cpp_python": importlib.metadata.version("llama_cpp_python"),
        "llama_server": {"binary": str(binary), "version": server_version(binary)},
        "settings": {"long": True, "replay": "--mlperf", "in_process": "edgeagent's defaults",
                     "llama_server": list(REFERENCE_FLAGS)} if args.long else {
            "threads": args.threads, "n_ctx": args.n_ctx, "seed": args.seed,
            "n_batch": N_BATCH, "flash_attn": False, "slots": 1,
            "max_new_tokens": args.max_new_tokens, "tool_format": args.tool_format},
        "datasets": {name: bench_dataset(name, path, out, args, model, binary)
                     for name, path in datasets.items()},
    }  # fmt: skip
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    for name, d in summary["datasets"].items():
        if "compare_command" in d:
            print(f"# {name}: {d['compare_command']}", file=sys.stderr)
    print(f"# summary: {out / 'summary.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
