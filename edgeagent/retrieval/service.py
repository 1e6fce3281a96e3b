"""Retrieval over one repository: build or reuse its cached index, keep it in step with the
agent's edits, and answer queries with their cost split into index / embed / search / rerank.

The cache is keyed by the repository's content (every file's sha256) plus the model and the
chunking rules, so every attempt at a task, and every run, reuses one build. A task works on
a private copy of the cached file: its edits update the copy, never the shared cache.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .chunker import CHUNKER_VERSION, Chunk, SourceFile, chunk_text, list_files, read_source
from .cost import RetrievalCost
from .index import Hit, Index
from .retrieval_settings import DEFAULT_EMBEDDING_MODEL


class Reranker(Protocol):
    """A second stage over the fused candidates (e.g. a cross-encoder); none by default."""

    name: str

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]: ...


def index_cache_dir() -> Path:
    env = os.environ.get("EDGEAGENT_INDEX_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "edgeagent" / "indexes"


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: tuple[Hit, ...]
    cost: RetrievalCost


class RetrievalService:
    """One per run: the embedding model, loaded once on first use, and the index cache."""

    def __init__(
        self,
        model: str = DEFAULT_EMBEDDING_MODEL,
        *,
        threads: int | None = None,
        cache_dir: Path | None = None,
        reranker: Reranker | None = None,
        embedder=None,  # an Embedder already loaded (tests and benches share one)
        knn: str = "matrix",  # index.KNN_BACKENDS: the in-memory matrix, or vec0's own scan
        text: str = "memory",  # index.TEXT_BACKENDS: in-memory BM25, or FTS5's own bm25()
    ) -> None:
        self.model = model
        self.threads = threads
        self.cache_dir = Path(cache_dir) if cache_dir is not None else index_cache_dir()
        self.reranker = reranker
        self._embedder = embedder
        self.knn = knn
        self.text = text
        self.load_ms: float | None = None

    def load(self) -> None:
        """Load the embedding model now (else on the first query), timing it."""
        t0 = time.monotonic_ns()
        _ = self.embedder
        self.load_ms = (time.monotonic_ns() - t0) / 1e6

    @property
    def embedder(self):
        if self._embedder is None:
            from .embedder import Embedder
            from .registry import resolve_embedding_model

            self._embedder = Embedder(resolve_embedding_model(self.model), threads=self.threads)
        return self._embedder

    def provenance(self) -> dict:
        from .registry import EMBEDDING_MODELS

        spec = EMBEDDING_MODELS.get(self.model)
        return {
            "model": self.model,
            "onnx_sha256": spec.onnx.sha256 if spec else None,
            "dims": spec.dims if spec else None,
            "max_length": spec.max_length if spec else None,
            "threads": self.threads,
            "reranker": getattr(self.reranker, "name", None),
            "knn": self.knn,
            "text": self.text,
            "model_load_ms": self.load_ms,
            "index_cache_dir": str(self.cache_dir),
        }

    def retriever(self, root: Path) -> Retriever:
        return Retriever(self, Path(root))


def _embed_text(chunk: Chunk) -> str:
    # the path is part of what a chunk is about ("the parser", "tests for X")
    return f"{chunk.path}\n{chunk.text}"


class Retriever:
    def __init__(self, service: RetrievalService, root: Path) -> None:
        self.service = service
        self.root = root
        self.index: Index | None = None
        self._work_dir: Path | None = None
        self.cache_path: Path | None = None

    # -- the index --

    def _snapshot(self) -> dict[str, SourceFile]:
        return {rel: read_source(self.root, rel) for rel in list_files(self.root)}

    def _key(self, sources: dict[str, SourceFile]) -> str:
        emb = self.service.embedder
        digest = hashlib.sha256(
            f"chunker {CHUNKER_VERSION}\nmodel {emb.name} {emb.dims} {emb.max_length}\n".encode()
        )
        for rel in sorted(sources):
            digest.update(f"{rel}\0{sources[rel].sha256}\n".encode())
        return digest.hexdigest()

    def open(self) -> bool:
        """Open the index for root: a copy of the cached build, else a new build (cached for
        next time). True when it came from the cache."""
        if self.index is not None:
            return True
        sources = self._snapshot()
        key = self._key(sources)
        cache_dir = self.service.cache_dir
        cache_dir.mkdir(parents=True, exist_ok=True)
        self.cache_path = cache_dir / f"{key[:40]}.sqlite"
        cached = self.cache_path.is_file()
        if not cached:
            self._build(sources, key)
        self._work_dir = Path(tempfile.mkdtemp(prefix="edgeagent-index-"))
        work = self._work_dir / "index.sqlite"
        shutil.copyfile(self.cache_path, work)
        self.index = Index(work, self.service.embedder.dims, knn=self.service.knn,
                           text=self.service.text)
        # read while opening rather than on the first query
        if self.service.knn == "matrix":
            self.index.load_vectors()
        if self.service.text == "memory":
            self.index.load_text()
        for rel, src in sources.items():  # this copy of the repository has its own mtimes
            self.index.touch_file(rel, src.size, src.mtime_ns)
        self.index.conn.commit()
        return cached

    def _build(self, sources: dict[str, SourceFile], key: str) -> None:
        assert self.cache_path is not None
        tmp = self.cache_path.with_name(f"{self.cache_path.stem}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        index: Index | None = None
        try:
            index = Index(tmp, self.service.embedder.dims)
            per_file = {rel: chunk_text(rel, s.text) if s.text else [] for rel, s in
                        sources.items()}
            flat = [c for rel in sorted(per_file) for c in per_file[rel]]
            vectors = self.service.embedder.embed([_embed_text(c) for c in flat])
            at = 0
            for rel in sorted(per_file):
                n = len(per_file[rel])
                s = sources[rel]
                index.put_file(rel, s.sha256, s.size, s.mtime_ns, per_file[rel],
                               vectors[at:at + n])
                at += n
            index.set_meta("content_key", key)
            index.set_meta("model", self.service.embedder.name)
        except BaseException:
            if index is not None:
                index.close()
            tmp.unlink(missing_ok=True)  # Ctrl-C, SIGTERM or a fault: no half-built file left
            raise
        index.close()
        os.replace(tmp, self.cache_path)  # atomic: a reader sees a whole index or none

    def sync(self) -> int:
        """Re-index the files changed since the index last saw them; the count changed."""
        assert self.index is not None
        known = self.index.files()
        present = list_files(self.root)
        changed = 0
        for rel in present:
            st = (self.root / rel).stat()
            seen = known.get(rel)
            if seen is not None and seen[1:] == (st.st_size, st.st_mtime_ns):
                continue
            src = read_source(self.root, rel)
            if seen is not None and seen[0] == src.sha256:
                self.index.touch_file(rel, src.size, src.mtime_ns)
                continue
            chunks = chunk_text(rel, src.text) if src.text else []
            vectors = self.service.embedder.embed([_embed_text(c) for c in chunks])
            self.index.put_file(rel, src.sha256, src.size, src.mtime_ns, chunks, vectors)
            changed += 1
        for rel in set(known) - set(present):
            self.index.remove_file(rel)
            changed += 1
        self.index.conn.commit()
        return changed

    def close(self) -> None:
        if self.index is not None:
            self.index.close()
            self.index = None
        if self._work_dir is not None:
            shutil.rmtree(self._work_dir, ignore_errors=True)
            self._work_dir = None

    # -- queries --

    def search(self, query: str, k: int = 5, mode: str = "hybrid") -> SearchResult:
        t0 = time.monotonic_ns()
        cached: bool | None = None
        if self.index is None:
            cached = self.open()
        changed = self.sync()
        t1 = time.monotonic_ns()
        vector = self.service.embedder.embed_one(query)
        t2 = time.monotonic_ns()
        assert self.index is not None
        hits = self.index.search(vector, query, k, mode)
        t3 = time.monotonic_ns()
        rerank_ms = None
        reranker = self.service.reranker
        if reranker is not None:
            hits = reranker.rerank(query, hits)[:k]
            rerank_ms = (time.monotonic_ns() - t3) / 1e6
        t4 = time.monotonic_ns()
        cost = RetrievalCost(
            t_start_ns=t0, t_end_ns=t4, index_ms=(t1 - t0) / 1e6, index_cached=cached,
            files_reindexed=changed, embed_ms=(t2 - t1) / 1e6, search_ms=(t3 - t2) / 1e6,
            rerank_ms=rerank_ms, chunks=self.index.count(),
        )
        return SearchResult(query, tuple(hits), cost)


SNIPPET_LINES = 8
SNIPPET_LINE_CHARS = 160


def format_hits(result: SearchResult) -> str:
    """The observation the agent reads: path:line ranges with a few lines of each."""
    if not result.hits:
        return f"no code found for {result.query!r}; try other words or grep"
    out = [f"{len(result.hits)} results for {result.query!r}, best first:"]
    for hit in result.hits:
        c = hit.chunk
        out.append(f"{c.path}:{c.start_line}-{c.end_line}")
        lines = c.text.splitlines()
        for n, line in enumerate(lines[:SNIPPET_LINES], start=c.start_line):
            if len(line) > SNIPPET_LINE_CHARS:
                line = line[:SNIPPET_LINE_CHARS] + " ..."
            out.append(f"  {n}| {line}")
        if len(lines) > SNIPPET_LINES:
            out.append(f"  [... read_file {c.path} start_line={c.start_line} for the rest]")
    return "\n".join(out)
