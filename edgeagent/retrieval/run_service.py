"""The run's side of retrieval: check it can work before a model loads, then one service."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from . import unavailable_reason


def service_for_run(config: Any) -> Any:
    """A RetrievalService for config (retrieval: true), or ConfigError saying what is missing."""
    why = unavailable_reason()
    if why is not None:
        raise ConfigError(f"retrieval: true: {why} (or turn retrieval off)")
    from .registry import EMBEDDING_MODELS, resolve_embedding_model
    from .service import RetrievalService

    if config.retrieval_model not in EMBEDDING_MODELS:
        raise ConfigError(
            f"retrieval_model: unknown embedding model {config.retrieval_model!r} "
            f"(known: {', '.join(EMBEDDING_MODELS)})"
        )
    resolve_embedding_model(config.retrieval_model)  # fetched and verified now, not mid-task
    service = RetrievalService(
        config.retrieval_model, threads=config.retrieval_threads or config.threads
    )
    service.load()  # once per run, before any task: a task's index time is the index's own
    return service
