"""Whether the agent may search the repository, and with what (a section of RunConfig: each
key's default, help and flag declared here once). Light: the [retrieval] extra loads only
when a run asks for it."""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import setting

DEFAULT_EMBEDDING_MODEL = "all-minilm-l6-v2-int8"


@dataclass(frozen=True)
class RetrievalConfig:
    """The search_code tool and its embedding model (a section of RunConfig)."""

    retrieval: bool = setting(
        False, "offer the search_code tool (embeddings + BM25; needs the [retrieval] extra)")
    retrieval_model: str = setting(DEFAULT_EMBEDDING_MODEL, "embedding model", cli=False)
    retrieval_threads: int | None = setting(
        None, "onnxruntime intra-op threads", cli=False, default_text="--threads")
