"""Evidence retrieval for the agent: chunking, on-device embeddings (onnxruntime), a sqlite-vec
+ FTS5 index with hybrid ranking, and the search_code tool's backend.

Optional: `pip install 'edgeagent[retrieval]'`. This module imports nothing heavy, so the
rest of edgeagent can ask whether retrieval is available without loading it.
"""

from __future__ import annotations

import importlib.util

from ..exports import lazy_exports

# the modules that need the [retrieval] extra load only when one of their names is first read
_LAZY, __getattr__ = lazy_exports(__name__, {
    "chunker": ("Chunk", "chunk_text", "list_files", "read_source"),
    "cost": ("RetrievalCost",),
    "embedder": ("Embedder", "session_options"),
    "index": ("Index", "RRF_K"),
    "registry": ("resolve_embedding_model",),
    "retrieval_settings": ("DEFAULT_EMBEDDING_MODEL", "RetrievalConfig"),
    "run_service": ("service_for_run",),
    "service": ("RetrievalService", "format_hits"),
})
__all__ = ["REQUIRED_MODULES", "missing_dependencies", "unavailable_reason", *_LAZY]

REQUIRED_MODULES = ("onnxruntime", "tokenizers", "sqlite_vec", "numpy")


def missing_dependencies() -> list[str]:
    """The modules retrieval needs that are not installed (sqlean only where the stdlib
    sqlite3 cannot load extensions)."""
    missing = [m for m in REQUIRED_MODULES if importlib.util.find_spec(m) is None]
    import sqlite3

    if not hasattr(sqlite3.Connection, "enable_load_extension") and (
        importlib.util.find_spec("sqlean") is None
    ):
        missing.append("sqlean")
    return missing


def unavailable_reason() -> str | None:
    missing = missing_dependencies()
    if not missing:
        return None
    return (
        f"retrieval needs {', '.join(missing)}: install them with "
        "pip install 'edgeagent[retrieval]'"
    )
