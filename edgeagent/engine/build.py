"""The one place that chooses an engine for a run: an OpenAI-compatible endpoint when the
config names one, else the model's GGUF loaded in process by llama.cpp."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import RunConfig, parse_spec
from ..models import resolve_model
from .base import Engine

# builds the in-process engine from a GGUF path (tests pass their own)
EngineFactory = Callable[[Path, RunConfig], Engine]


def build_engine(
    config: RunConfig, *, progress: bool = True, engine_factory: EngineFactory | None = None
) -> tuple[Any, Engine]:
    """(the model's record for provenance, the engine). Resolving a known model name may
    download it (with a progress bar when `progress`)."""
    if config.endpoint:
        from .http import endpoint_engine

        return endpoint_engine(config, progress=progress)
    model = resolve_model(config.model, progress=progress)
    return model, (engine_factory or llamacpp_engine)(model.path, config)


def llamacpp_engine(path: Path, config: RunConfig) -> Engine:
    """The in-process llama.cpp engine with the config's context, llama.cpp settings
    (threads, batches, flash attention, KV types, offload, mlock, mmap), sampling and
    speculative settings."""
    from .llamacpp import LlamaCppEngine

    return LlamaCppEngine(
        path,
        n_ctx=config.n_ctx,
        n_threads=config.threads,
        n_gpu_layers=config.gpu_layers,
        n_threads_batch=config.threads_batch,
        n_batch=config.n_batch,
        n_ubatch=config.n_ubatch or min(config.n_batch, 512),  # llama.cpp's default
        flash_attn=config.flash_attn,
        type_k=config.type_k,
        type_v=config.type_v,
        use_mlock=config.mlock,
        use_mmap=config.mmap,
        seed=config.seed,
        temperature=config.temperature,
        top_p=config.top_p,
        repeat_penalty=config.repeat_penalty,
        spec=parse_spec(config.spec, ngram=config.spec_ngram, max_draft=config.spec_max_draft),
    )
