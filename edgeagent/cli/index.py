"""`edgeagent index PATH [--query TEXT] [--k N] [--json]`: the retrieval numbers alone."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import UserError
from .common import abort_on_signals


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "index", help="build (or reuse) a directory's retrieval index and query it",
        description="Index a directory with on-device embeddings + BM25 (cached by content) "
        "and answer a query: hits with path, line range and score, and the index build, "
        "embed, search and rerank times.",
    )
    p.add_argument("path", type=Path, help="directory to index")
    p.add_argument("--query", help="text to search for")
    p.add_argument("--k", type=int, default=5, help="number of hits (default 5)")
    p.add_argument("--mode", choices=("hybrid", "vector", "text"), default="hybrid",
                   help="ranking: RRF of both (default), vectors only, BM25 only")
    p.add_argument("--model", default=None, help="embedding model (default all-minilm-l6-v2-int8)")
    p.add_argument("--threads", type=int, help="onnxruntime intra-op threads")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_index)


def _cmd_index(args: argparse.Namespace) -> int:
    from ..retrieval import unavailable_reason

    why = unavailable_reason()
    if why is not None:
        raise UserError(f"edgeagent index: {why}")
    if not args.path.is_dir():
        raise UserError(f"index: {args.path} is not a directory (give a repository folder)")
    if args.k < 1:
        raise UserError(f"--k must be 1 or more, got {args.k}")
    signals = abort_on_signals()
    try:
        report = _index_report(args)
    except KeyboardInterrupt:
        # the build writes a temporary file, cached only once whole (retrieval/service.py)
        print(f"interrupted: the index of {args.path} was not finished and nothing was "
              "cached; run the command again", file=sys.stderr)
        return 128 + (signals[0] if signals else signal.SIGINT)
    return _print_report(args, report)


def _index_report(args: argparse.Namespace) -> dict[str, Any]:
    """Build (or reuse) the index, and answer --query: the numbers `index` prints."""
    from ..retrieval import DEFAULT_EMBEDDING_MODEL, RetrievalService

    service = RetrievalService(args.model or DEFAULT_EMBEDDING_MODEL, threads=args.threads)
    retriever = service.retriever(args.path.resolve())
    try:
        t0 = time.monotonic_ns()
        _ = service.embedder  # model load is reported apart from the index build
        load_ms = (time.monotonic_ns() - t0) / 1e6
        t1 = time.monotonic_ns()
        cached = retriever.open()
        build_ms = (time.monotonic_ns() - t1) / 1e6
        report = {
            "path": str(args.path), "model": service.model, "model_load_ms": load_ms,
            "index_build_ms": build_ms, "index_cached": cached,
            "index_file": str(retriever.cache_path), "chunks": retriever.index.count(),
        }
        if args.query:
            result = retriever.search(args.query, args.k, args.mode)
            c = result.cost
            report.update(
                query=args.query, mode=args.mode, embed_ms=c.embed_ms, search_ms=c.search_ms,
                rerank_ms=c.rerank_ms, rerank_null_reason=None if c.rerank_ms is not None
                else "no reranker configured",
                hits=[{"path": h.chunk.path, "start_line": h.chunk.start_line,
                       "end_line": h.chunk.end_line, "score": h.score,
                       "vector_rank": h.vector_rank, "text_rank": h.text_rank}
                      for h in result.hits],
            )
    finally:
        retriever.close()
    return report


def _print_report(args: argparse.Namespace, report: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    state = "reused from cache" if report["index_cached"] else "built"
    print(f"index {state}: {report['chunks']} chunks in {report['index_build_ms']:.0f} ms "
          f"(model load {report['model_load_ms']:.0f} ms) -> {report['index_file']}")
    if args.query:
        print(f"query {args.query!r}: embed {report['embed_ms']:.1f} ms, search "
              f"{report['search_ms']:.1f} ms, rerank "
              f"{'n/a (none configured)' if report['rerank_ms'] is None else report['rerank_ms']}")
        for h in report["hits"]:
            print(f"  {h['score']:.4f}  {h['path']}:{h['start_line']}-{h['end_line']}")
    return 0
