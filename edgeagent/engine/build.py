"""The one place that chooses an engine for a run: an OpenAI-compatible endpoint when the
config names one, else the model's GGUF loaded in process by llama.cpp.

The engine does not import the run's config: it reads the few fields `EngineConfig` names,
and the in-process engine gets the EngineSettings record the config builds."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ..models import resolve_model
from .base import Engine
from .llamacpp_settings import EngineSettings

# builds the in-process engine from a GGUF path and its settings (tests pass their own)
EngineFactory = Callable[[Path, EngineSettings], Engine]


class EngineConfig(Protocol):
    """What build_engine reads of a run's config (RunConfig): the model or the endpoint
    (whose fields `http.endpoint_engine` reads), and the in-process engine's settings."""

    model: str
    endpoint: str | None

    def engine_settings(self) -> EngineSettings: ...


def build_engine(
    config: EngineConfig, *, progress: bool = True, engine_factory: EngineFactory | None = None,
    turn_timeout_s: float | None = None,
) -> tuple[Any, Engine]:
    """(the model's record for provenance, the engine). Resolving a known model name may
    download it (with a progress bar when `progress`). `turn_timeout_s` bounds each turn of
    the in-process engine too (an endpoint's turns are always bounded by the config's)."""
    if config.endpoint:
        from .http import endpoint_engine

        return endpoint_engine(config, progress=progress)
    model = resolve_model(config.model, progress=progress)
    settings = dataclasses.replace(config.engine_settings(), turn_timeout_s=turn_timeout_s)
    return model, (engine_factory or llamacpp_engine)(model.path, settings)


def llamacpp_engine(path: Path, settings: EngineSettings) -> Engine:
    """The in-process llama.cpp engine with these settings (context, llama.cpp's threads,
    batches, flash attention, KV types, offload, mlock, mmap, sampling, speculative)."""
    from .llamacpp import LlamaCppEngine

    return LlamaCppEngine(path, settings)
