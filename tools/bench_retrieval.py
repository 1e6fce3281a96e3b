"""Retrieval benchmark, one JSON object on stdout:

- embedding throughput of edgeagent's Embedder vs raw onnxruntime on the same inputs (the same
  tokenised, padded batches; raw = session.run only), interleaved, median of repeats;
- index build time of a repository (default: the edgeagent package source; pass --repo);
- query latency p50/p95 (query embedding, and vector / BM25 / hybrid search) at 1k, 10k and
  50k chunks: real chunk texts of the repository repeated for BM25, random unit vectors for
  the vectors (an exact KNN scan costs the same whatever the vectors are). At each size the
  exact KNN (the index's in-memory matrix, and sqlite-vec's vec0 scan for reference) is timed
  against a numpy brute-force matrix-vector product over the same vectors, interleaved query by
  query so background load hits all alike; `knn_vs_numpy` is the ratio of the p50s (issue 23:
  <= 2.0 at 10k), `hybrid_ms.p50` the hybrid query (<= 10 ms at 10k), and `same_neighbours`
  says whether the matrix and vec0 returned the same ids in the same order for every query;
  BM25 alone (the hybrid query's 50 candidates) in memory vs FTS5's bm25(), with
  `same_text_ranks` (the same ids in the same order for every query);
- recall@10 and MRR of hybrid vs vector-only vs BM25-only on a labelled query set over the
  edgeagent source (LABELLED below: query -> file and the function/class that answers it),
  with the in-memory matrix and BM25 and again with vec0 and FTS5 (`unchanged_vs_vec0`: the
  same rank for every query in every mode).

BLAS runs one thread unless OPENBLAS_NUM_THREADS (or OMP_/MKL_NUM_THREADS) says otherwise, so
the KNN figures are single-thread figures as in issue 23; the environment that steers OpenBLAS
(thread count, OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE) is echoed under "machine".

Usage: PYTHONPATH=. python tools/bench_retrieval.py [--repo DIR] [--threads N] [--sizes 10000]
                                                    [--only latency] [--repeat-latency 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

# before numpy loads OpenBLAS: the KNN comparison is single-thread (see the docstring)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgeagent.retrieval.chunker import Chunk, chunk_text, list_files, read_source  # noqa: E402
from edgeagent.retrieval.embedder import Embedder, session_options  # noqa: E402
from edgeagent.retrieval.index import CANDIDATES, Index  # noqa: E402
from edgeagent.retrieval.registry import resolve_embedding_model  # noqa: E402
from edgeagent.retrieval.service import RetrievalService  # noqa: E402

# (query, file under edgeagent/, the def/class whose chunk answers it)
# The same, for the largest `core` repository (tasks/core/b14-fleetops-fuel-report-wrong/repo):
# a generated fleet package whose 18 record kinds repeat one shape, so near-duplicate chunks
# compete with the answer. Paths are relative to that repo.
CORE_REPO = ROOT / "tasks" / "core" / "b14-fleetops-fuel-report-wrong" / "repo"
CORE_LABELLED: list[tuple[str, str, str]] = [
    ("fuel cost per kilometre for each vehicle report", "fleetops/reports/fuel_report.py",
     "fuel_report"),
    ("how many kilometres a vehicle drives per liter of fuel",
     "fleetops/services/fuel_log_service.py", "km_per_liter"),
    ("cost of one fuel fill in cents", "fleetops/services/fuel_log_service.py", "fill_cost_cents"),
    ("fuel spending grouped by depot", "fleetops/services/fuel_log_service.py", "cost_by_depot"),
    ("convert miles to kilometres", "fleetops/util/units.py", "miles_to_km"),
    ("convert a distance in a given unit to km", "fleetops/util/units.py", "to_km"),
    ("liters to US gallons", "fleetops/util/units.py", "liters_to_gallons"),
    ("split an amount of cents into equal parts without losing a cent",
     "fleetops/util/money.py", "split_cents"),
    ("format cents as money with a currency symbol", "fleetops/util/money.py", "format_money"),
    ("number of days between two dates", "fleetops/util/dates.py", "days_between"),
    ("is a day inside an optional start and end range", "fleetops/util/dates.py", "in_range"),
    ("parse yes/no true/false text into a boolean", "fleetops/util/validation.py", "parse_bool"),
    ("check a value is one of the allowed choices", "fleetops/util/validation.py",
     "require_choice"),
    ("does a record match all the given filter fields", "fleetops/store/base.py",
     "matches_filters"),
    ("read rows of a CSV file as dictionaries", "fleetops/util/csvio.py", "read_rows"),
    ("command line argument parser of the fleetops tool", "fleetops/cli/main.py",
     "build_parser"),
    ("pluralise a word by count", "fleetops/util/text.py", "plural"),
    ("shorten text to a width", "fleetops/util/text.py", "truncate"),
]

LABELLED: list[tuple[str, str, str]] = [
    ("cache the sha256 of a model file so it is not hashed again", "models.py", "cached_sha256"),
    ("download a wheel with pip without its dependencies", "models.py", "download_wheel"),
    ("kill the whole process group of a command that timed out", "sandbox/process.py",
     "_kill_session"),
    ("environment variables given to sandboxed commands", "sandbox/process.py", "scrubbed_env"),
    ("refuse a path that escapes the workspace", "sandbox/workspace.py", "resolve"),
    ("integrate power samples over time to get joules", "meter/energy.py", "integrate_power"),
    ("energy counter wraparound between two readings", "meter/energy.py", "counter_delta"),
    ("measure idle power before the run starts", "meter/baseline.py", "measure_baseline"),
    ("parse a duration like 0.5s or 2m", "meter/baseline.py", "parse_duration"),
    ("hint for the model when the old text of an edit is not found", "sandbox/tools.py",
     "_not_found_hint"),
    ("parse the model's JSON tool call leniently", "agent/actions.py", "parse_action"),
    ("GBNF grammar for tool calls from a JSON schema", "agent/actions.py", "action_grammar"),
    ("copy in the hidden tests and run them to grade a task", "suite/grading.py", "grade"),
    ("check that the reference solution really fixes the task", "suite/validate.py",
     "validate_task"),
    ("config value of the wrong type gives an error naming the key", "config.py", "_coerce"),
    ("reuse the KV cache prefix of the previous prompt", "engine/llamacpp.py", "_reused_prefix"),
    ("CPUs with AMX crash native llama.cpp builds", "engine/llamacpp.py", "_cpu_has_amx"),
    ("battery discharge power in watts", "meter/sources/battery.py", "read_watts"),
    ("RAPL energy counter maximum range before it wraps", "meter/sources/rapl.py",
     "_wrap_joules"),
    ("plain-text summary of a run directory", "results/report.py", "render_report"),
    ("create a new run directory with a unique name", "results/store.py", "make_run_dir"),
    ("Ctrl-C stops the run after the current step", "cli/common.py", "StopFlag"),
    ("reciprocal rank fusion of vector and BM25 rankings", "retrieval/index.py", "search"),
    ("split Python files into top-level functions and classes", "retrieval/chunker.py",
     "_python_chunks"),
    ("mean pooling and L2 normalisation of token embeddings", "retrieval/embedder.py", "pool"),
    ("CPU utilisation percent from process time deltas", "meter/sampler.py", "sample_now"),
    ("energy of each step split into prefill, decode and tool phases",
     "meter/attribution.py", "_metered"),
    ("render the chat template with jinja", "engine/chat_template.py", "render_text"),
]


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def repo_chunks(root: Path) -> list[Chunk]:
    out = []
    for rel in list_files(root):
        src = read_source(root, rel)
        if src.text:
            out += chunk_text(rel, src.text)
    return out


def bench_throughput(embedder: Embedder, texts: list[str], repeats: int) -> dict:
    import onnxruntime as ort

    model = resolve_embedding_model(embedder.name)
    raw = ort.InferenceSession(str(model.onnx_path), session_options(embedder.threads),
                               providers=["CPUExecutionProvider"])
    feeds = [f for _, f in embedder.batches(texts)]  # exactly what embed() will run
    out_name = embedder.spec.output
    embedder.embed(texts[:4])  # warm both sessions
    raw.run([out_name], feeds[0])
    ours_s, raw_s = [], []
    for _ in range(repeats):  # interleaved: background load hits both alike
        t = time.perf_counter()
        embedder.embed(texts)
        ours_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        for f in feeds:
            raw.run([out_name], f)
        raw_s.append(time.perf_counter() - t)
    ours, rawm = statistics.median(ours_s), statistics.median(raw_s)
    tokens = int(sum(f["attention_mask"].sum() for f in feeds))
    return {
        "texts": len(texts), "tokens": tokens, "batch_size": embedder.batch_size,
        "threads": embedder.threads, "repeats": repeats,
        "edgeagent_chunks_per_s": len(texts) / ours, "raw_onnxruntime_chunks_per_s":
        len(texts) / rawm, "ratio": rawm / ours,
        "edgeagent_s": ours_s, "raw_s": raw_s,
        "note": "edgeagent = tokenize + pad + run + mean-pool + L2; raw = session.run on the "
                "same padded batches",
    }


def bench_build(embedder: Embedder, repo: Path, cache: Path) -> dict:
    class Timed:  # the embedder, with its time counted
        def __init__(self, inner: Embedder) -> None:
            self.inner, self.seconds, self.texts = inner, 0.0, 0

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def embed(self, texts):
            t = time.perf_counter()
            out = self.inner.embed(texts)
            self.seconds += time.perf_counter() - t
            self.texts += len(texts)
            return out

    timed = Timed(embedder)
    svc = RetrievalService(cache_dir=cache, embedder=timed)
    r = svc.retriever(repo)
    t = time.perf_counter()
    cached = r.open()
    build = time.perf_counter() - t
    chunks = r.index.count()
    r.close()
    r2 = svc.retriever(repo)
    t = time.perf_counter()
    cached2 = r2.open()
    reuse = time.perf_counter() - t
    r2.close()
    return {
        "repo": str(repo), "files": len(list_files(repo)), "chunks": chunks,
        "build_ms": build * 1000, "embed_ms": timed.seconds * 1000,
        "embed_chunks_per_s": timed.texts / timed.seconds if timed.seconds else None,
        "cached_first": cached, "cache_hit_open_ms": reuse * 1000, "cached_second": cached2,
    }


def _ms(times: list[float]) -> dict:
    return {"p50": pct(times, 50), "p95": pct(times, 95)}


def _timed(fn, *args) -> tuple[float, float, object]:
    """(wall ms, this thread's CPU ms, result). On a shared machine the wall time includes
    waiting for a core; the thread's CPU time does not (BLAS runs one thread here)."""
    c, t = time.thread_time_ns(), time.perf_counter_ns()
    out = fn(*args)
    return (time.perf_counter_ns() - t) / 1e6, (time.thread_time_ns() - c) / 1e6, out


def _numpy_topk(matrix: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    return np.argpartition(-(matrix @ q), k)[:k]


def bench_queries(embedder: Embedder, base: list[Chunk], sizes: list[int], n_q: int,
                  k: int = 10) -> dict:
    queries = [q for q, _, _ in LABELLED]
    q_vecs, embed_ms = [], []
    for i in range(n_q):
        t = time.perf_counter()
        q_vecs.append(embedder.embed_one(queries[i % len(queries)]))
        embed_ms.append((time.perf_counter() - t) * 1000)
    out = {"query_embed_ms": _ms(embed_ms), "queries": n_q, "k": k, "sizes": {}}
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            index = Index(Path(tmp) / f"{size}.sqlite", embedder.dims)
            chunks = [Chunk(f"synthetic/{i // 20}.py", 1, 1, base[i % len(base)].text, "window")
                      for i in range(size)]
            vectors = rng.standard_normal((size, embedder.dims)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            t = time.perf_counter()
            index.add_chunks(chunks, vectors)
            insert_s = time.perf_counter() - t
            t = time.perf_counter()
            index.load_vectors()
            load_s = time.perf_counter() - t
            t = time.perf_counter()
            index.load_text()
            text_load_s = time.perf_counter() - t
            row: dict = {"insert_ms": insert_s * 1000, "matrix_load_ms": load_s * 1000,
                         "bm25_load_ms": text_load_s * 1000}
            # the brute-force reference: the same vectors as one float32 matrix in numpy
            matrix = np.ascontiguousarray(vectors)
            paths = ("numpy_product", "numpy_topk", "knn_matrix", "knn_vec0")
            times: dict[str, list[float]] = {m: [] for m in paths}
            cpu: dict[str, list[float]] = {m: [] for m in paths}
            same = True
            for _ in range(2):  # warm caches and BLAS before timing
                matrix @ q_vecs[0]
                index.vector_ranked(q_vecs[0], k)
            for i in range(n_q):  # interleaved: background load hits every path alike
                q = q_vecs[i]
                got = ref = None
                for path, fn, fargs in (
                    ("numpy_product", np.matmul, (matrix, q)),
                    ("numpy_topk", _numpy_topk, (matrix, q, k)),
                    ("knn_matrix", index.vector_ranked, (q, k)),
                    ("knn_vec0", index.vector_ranked_vec0, (q, k)),
                ):
                    ms, cpu_ms, result = _timed(fn, *fargs)
                    times[path].append(ms)
                    cpu[path].append(cpu_ms)
                    got = result if path == "knn_matrix" else got
                    ref = result if path == "knn_vec0" else ref
                same = same and [c for c, _ in got] == [c for c, _ in ref]
            row.update({f"{m}_ms": _ms(v) for m, v in times.items()})
            row.update({f"{m}_cpu_ms": _ms(v) for m, v in cpu.items()})
            p50 = {m: statistics.median(v) for m, v in times.items()}
            p50_cpu = {m: statistics.median(v) for m, v in cpu.items()}
            row["knn_vs_numpy"] = p50["knn_matrix"] / p50["numpy_product"]
            row["knn_vs_numpy_topk"] = p50["knn_matrix"] / p50["numpy_topk"]
            row["vec0_vs_numpy"] = p50["knn_vec0"] / p50["numpy_product"]
            row["knn_vs_numpy_cpu"] = p50_cpu["knn_matrix"] / p50_cpu["numpy_product"]
            row["same_neighbours"] = same
            modes = ("vector", "text", "hybrid")
            wall_mode: dict[str, list[float]] = {m: [] for m in modes}
            cpu_mode: dict[str, list[float]] = {m: [] for m in modes}
            for i in range(n_q):  # interleaved too
                for mode in modes:
                    ms, cpu_ms, _ = _timed(index.search, q_vecs[i], queries[i % len(queries)],
                                           10, mode)
                    wall_mode[mode].append(ms)
                    cpu_mode[mode].append(cpu_ms)
            for mode in modes:
                row[f"{mode}_ms"] = _ms(wall_mode[mode])
                row[f"{mode}_cpu_ms"] = _ms(cpu_mode[mode])
            # BM25 alone, the hybrid query's candidate pool: in memory vs FTS5's own bm25()
            bm25: dict[str, list[float]] = {"bm25_memory": [], "bm25_fts5": []}
            same_text = True
            for i in range(n_q):
                query = queries[i % len(queries)]
                ms, _, got = _timed(index.text_ranked, query, CANDIDATES)
                bm25["bm25_memory"].append(ms)
                ms, _, ref = _timed(index.text_ranked_fts5, query, CANDIDATES)
                bm25["bm25_fts5"].append(ms)
                same_text = same_text and [c for c, _ in got] == [c for c, _ in ref]
            row.update({f"{m}_ms": _ms(v) for m, v in bm25.items()})
            row["same_text_ranks"] = same_text
            out["sizes"][str(size)] = row
            index.close()
    out["note"] = ("knn_vs_numpy = p50 of Index.vector_ranked (in-memory matrix: product, "
                   "partial sort, ids) / p50 of the bare numpy product matrix @ q; "
                   "knn_vs_numpy_topk divides by product + argpartition top-k instead; "
                   "*_cpu_ms and knn_vs_numpy_cpu: the same in this thread's CPU time, "
                   "which excludes waiting for a core on a shared machine")
    return out


def target_span(src: Path, path: str, symbol: str) -> tuple[int, int]:
    """Lines of the (first) def/class named symbol in src/path, at any depth."""
    import ast

    tree = ast.parse((src / path).read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node.name == symbol:
            return node.lineno, node.end_lineno or node.lineno
    raise SystemExit(f"labelled target {path}:{symbol} not found; update LABELLED")


def bench_recall(embedder: Embedder, src: Path, cache: Path,
                 labelled: list[tuple[str, str, str]] | None = None) -> dict:
    """Recall with the matrix KNN, and whether vec0 gives exactly the same ranks."""
    res = recall_of(embedder, src, cache, labelled, "matrix", "memory")
    ref = recall_of(embedder, src, cache, labelled, "vec0", "fts5")
    res["unchanged_vs_vec0"] = res["ranks"] == ref["ranks"]
    return res


def recall_of(embedder: Embedder, src: Path, cache: Path,
              labelled: list[tuple[str, str, str]] | None, knn: str, text: str) -> dict:
    labelled = LABELLED if labelled is None else labelled
    svc = RetrievalService(cache_dir=cache, embedder=embedder, knn=knn, text=text)
    r = svc.retriever(src)
    cached = r.open()
    res: dict = {"queries": len(labelled), "repo": str(src), "index_cached": cached, "knn": knn,
                 "text": text}
    ranks: dict[str, list] = {}
    for mode in ("hybrid", "vector", "text"):
        found, rr = 0, 0.0
        ranks[mode] = []
        for q, path, symbol in labelled:
            hits = r.search(q, 10, mode).hits
            first, last = target_span(src, path, symbol)
            # relevant: a chunk of that file overlapping the def (long defs are windowed)
            rank = next((i for i, h in enumerate(hits, 1) if h.chunk.path == path
                         and h.chunk.start_line <= last and h.chunk.end_line >= first), None)
            found += rank is not None
            rr += 1.0 / rank if rank else 0.0
            ranks[mode].append(rank)
        res[f"recall_at_10_{mode}"] = found / len(labelled)
        res[f"mrr_at_10_{mode}"] = rr / len(labelled)
    res["ranks"] = [
        {"query": q, "target": f"{p}:{s}", **{m: ranks[m][i] for m in ranks}}
        for i, (q, p, s) in enumerate(labelled)
    ]
    r.close()
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=ROOT / "edgeagent",
                    help="repository to time the index build on (default: edgeagent source)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", default="all-minilm-l6-v2-int8", help="embedding model")
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--queries", type=int, default=56)
    ap.add_argument("--texts", type=int, default=64, help="texts for the throughput test")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cache-dir", type=Path, help="index cache to reuse (default: a temp dir, "
                    "so the build is timed from scratch)")
    ap.add_argument("--only", choices=("throughput", "build", "recall", "latency"),
                    action="append", help="run only these sections (repeatable)")
    ap.add_argument("--repeat-latency", type=int, default=1, metavar="N",
                    help="run the latency section N times in this process, to show the spread")
    args = ap.parse_args()

    model = resolve_embedding_model(args.model)
    t = time.perf_counter()
    embedder = Embedder(model, threads=args.threads)
    load_ms = (time.perf_counter() - t) * 1000
    src = ROOT / "edgeagent"
    base = repo_chunks(src)
    texts = [f"{c.path}\n{c.text}" for c in base[: args.texts]]
    report = {
        "model": {"name": model.name, "onnx_sha256": model.spec.onnx.sha256,
                  "max_length": embedder.max_length, "load_ms": load_ms},
        "machine": {"cpus": os.cpu_count(), "threads": args.threads, "blas_env": {
            v: os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                           "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
                                           "OPENBLAS_L2_SIZE")}},
    }
    want = set(args.only or ("throughput", "build", "recall", "latency"))
    if "throughput" in want:
        report["embedding_throughput"] = bench_throughput(embedder, texts, args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache_dir or Path(tmp)
        if "build" in want:
            report["index_build"] = bench_build(embedder, args.repo.resolve(), cache)
        if "recall" in want:
            report["recall"] = bench_recall(embedder, src, cache)
            if CORE_REPO.is_dir():  # the largest core repository, with its own labels
                report["recall_core"] = bench_recall(embedder, CORE_REPO, cache, CORE_LABELLED)
    if "latency" in want:
        sizes = [int(s) for s in args.sizes.split(",")]
        runs = [bench_queries(embedder, base, sizes, args.queries)
                for _ in range(args.repeat_latency)]
        report["query_latency"] = runs[0]
        if len(runs) > 1:
            report["query_latency_repeats"] = runs[1:]
            report["query_latency_spread"] = {
                str(size): {key: [r["sizes"][str(size)][key] for r in runs] for key in (
                    "knn_vs_numpy", "knn_vs_numpy_topk", "knn_vs_numpy_cpu", "vec0_vs_numpy",
                    "same_neighbours", "same_text_ranks")}
                | {f"hybrid{c}_ms_p50": [r["sizes"][str(size)][f"hybrid{c}_ms"]["p50"]
                                         for r in runs] for c in ("", "_cpu")}
                for size in sizes}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
