"""What one retrieval call cost, as the tool reports it to the step record (no heavy imports:
the sandbox imports this even when the retrieval extra is not installed)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetrievalCost:
    t_start_ns: int  # monotonic edges of the whole retrieval: index work, embed, search, rerank
    t_end_ns: int
    index_ms: float  # building, loading or updating the index during this call
    index_cached: bool | None  # None: the index was already open; else whether a cache hit
    files_reindexed: int  # files the agent changed since the index last saw them
    embed_ms: float  # the query's embedding
    search_ms: float  # KNN + BM25 + fusion
    rerank_ms: float | None  # None: no reranker configured
    chunks: int  # chunks in the index
