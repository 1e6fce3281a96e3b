"""llama.cpp's context and model settings: the record the in-process engine is built with
(EngineSettings, with its speculative decoding's SpecSettings), the KV cache types by name
and their size per token, and what llama.cpp says it used, read back from the context and
its load log.

The engine owns these records; the run's config builds them (RunConfig.engine_settings), so
the engine never reads the config itself.

The read-back is what a sweep row stands on: llama-cpp-python clamps some values (n_batch to
n_ctx, n_ubatch to n_batch) and llama.h has no getter for flash attention or the KV types, so
each setting is recorded both as asked and as llama.cpp reports it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..settings import on_off, setting

# ggml_type ids (ggml.h) of the KV cache types offered
GGML_TYPES = {"f16": 1, "q8_0": 8, "q4_0": 2}
# ggml's type traits: (bytes per block, elements per block)
_BLOCKS = {"f16": (2, 1), "q8_0": (34, 32), "q4_0": (18, 32)}
# flash attention as llama.cpp takes it (llama_flash_attn_type): auto lets llama.cpp enable it
# where the backend holding each layer has the op (the CPU does), as its C API, llama-server
# and MLPerf's reference command do by default; edgeagent's `auto` is that choice except on
# the CPU, where it is off (resolve_flash_attn)
FLASH_ATTN_MODES = ("auto", "on", "off")
_FLASH_WORDS = {"auto": "auto", "1": "on", "on": "on", "true": "on", "yes": "on",
                "enabled": "on", "0": "off", "off": "off", "false": "off", "no": "off",
                "disabled": "off"}


def resolve_flash_attn(mode: str, on_gpu: bool, type_v: str) -> str:
    """What flash-attention mode llama.cpp is handed for edgeagent's `mode`. `auto` is
    llama.cpp's own choice (on wherever the backend has the op) except where every layer
    runs on the CPU with an f16 V cache: there it is off, because llama.cpp's CPU kernel
    measured slower on both phases (MLPerf's long turns on the 2-vCPU EPYC host: 28% more
    wall, decode 8.2 against 15.3 tok/s past 14k tokens; docs/results/long-turns.md). A
    quantized V cache needs the op, so it keeps llama.cpp's choice."""
    if mode != "auto" or on_gpu or type_v != "f16":
        return mode
    return "off"


def flash_attn_mode(value: object) -> str | None:
    """auto | on | off from a mode, a bool or llama-bench's 1/0 (None: not one of them)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return _FLASH_WORDS.get(value.strip().lower()) if isinstance(value, str) else None


def flash_attn_arg(text: str) -> str:
    """`--flash-attn`: auto, on or off (1/0, true/false, yes/no as on/off)."""
    mode = flash_attn_mode(text)
    if mode is None:
        raise ValueError(f"expected auto, on or off (1/0), got {text!r}")
    return mode


@dataclass(frozen=True)
class LlamaConfig:
    """The run's llama.cpp context and model settings (a section of RunConfig: each key's
    default, help and flag are declared here once; docs/sweep.md says what each does)."""

    n_ctx: int = setting(8192, "llama.cpp context window", minimum=512)
    threads: int | None = setting(
        None, "CPU threads for llama.cpp (0: one per CPU; the number used is recorded in "
        "provenance.json)", default_text="one per CPU")
    threads_batch: int | None = setting(
        None, "threads for prompt processing", metavar="N", default_text="--threads")
    n_batch: int = setting(512, "logical batch: prompt tokens per llama_decode call",
                           metavar="N", minimum=1)
    n_ubatch: int | None = setting(
        None, "physical batch: tokens computed at once, at most --n-batch", metavar="N",
        minimum=1, default_text="512, or --n-batch if smaller")
    flash_attn: str = setting(
        "auto", "flash attention: auto is off on the CPU with an f16 V cache, where "
        "llama.cpp's kernel measured slower, and llama.cpp's own choice elsewhere; 1/0 are "
        "on/off", metavar="auto|on|off", parse=flash_attn_arg)
    type_k: str = setting("f16", "K cache type", choices=tuple(GGML_TYPES))
    type_v: str = setting("f16", "V cache type (a quantized V needs flash attention auto or "
                          "on)", choices=tuple(GGML_TYPES))
    gpu_layers: int = setting(0, "layers to offload to a GPU")
    mlock: bool = setting(False, "lock the model in RAM", metavar="1|0", parse=on_off)
    mmap: bool = setting(True, "map the model file instead of reading it", metavar="1|0",
                         parse=on_off)

    @property
    def physical_batch(self) -> int:
        """n_ubatch as llama.cpp gets it: unset is 512, or n_batch if smaller."""
        return self.n_ubatch or min(self.n_batch, 512)


@dataclass(frozen=True)
class SamplingConfig:
    """llama.cpp's sampler chain (a section of RunConfig); temperature 0 is greedy, and a
    replay is always greedy."""

    seed: int = setting(0, "sampling seed (recorded)")
    temperature: float = setting(0.0, "0: greedy; above 0: sampled with --seed", metavar="T")
    top_p: float = setting(
        0.95, "nucleus sampling: keep the smallest set of tokens whose probability reaches P "
        "(only with --temperature above 0)", metavar="P")
    repeat_penalty: float = setting(
        1.0, "divide the logits of the last 64 tokens by R (1.0: off)", metavar="R")


@dataclass(frozen=True)
class SpecConfig:
    """Speculative decoding as the run's config asks for it (a section of RunConfig);
    SpecSettings is it parsed."""

    spec: str = setting("off", "speculative decoding, greedy-exact",
                        metavar="off|prompt-lookup|draft:MODEL")
    spec_ngram: int = setting(3, "prompt lookup: longest n-gram matched against the context",
                              metavar="N", minimum=1)
    spec_max_draft: int = setting(8, "most tokens drafted per target pass", metavar="K",
                                  minimum=1)

    def spec_settings(self, where: str = "--spec") -> SpecSettings:
        return parse_spec(self.spec, ngram=self.spec_ngram, max_draft=self.spec_max_draft,
                          where=where)


@dataclass(frozen=True)
class SpecSettings:
    """What `--spec` asked for: off, prompt-lookup, or draft with a model name or path."""

    mode: str = SpecConfig.spec  # off | prompt-lookup | draft
    draft_model: str | None = None
    ngram: int = SpecConfig.spec_ngram
    max_draft: int = SpecConfig.spec_max_draft

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    def label(self) -> str:
        return f"draft:{self.draft_model}" if self.mode == "draft" else self.mode


def parse_spec(value: str, *, ngram: int = SpecConfig.spec_ngram,
               max_draft: int = SpecConfig.spec_max_draft, where: str = "--spec") -> SpecSettings:
    """'off' | 'prompt-lookup' | 'draft:MODEL' -> SpecSettings; a ConfigError names `where`."""
    text = (value or "").strip()
    if ngram < 1:
        raise ConfigError(f"{where}: spec_ngram must be at least 1, got {ngram}")
    if max_draft < 1:
        raise ConfigError(f"{where}: spec_max_draft must be at least 1, got {max_draft}")
    if text in ("off", "prompt-lookup"):
        return SpecSettings(text, None, ngram, max_draft)
    if text.startswith("draft:") and text[len("draft:") :].strip():
        return SpecSettings("draft", text[len("draft:") :].strip(), ngram, max_draft)
    raise ConfigError(
        f"{where}: key 'spec' must be one of off, prompt-lookup, draft:MODEL "
        f"(a model name or .gguf path), got {value!r}"
    )


@dataclass(frozen=True)
class EngineSettings(LlamaConfig, SamplingConfig):
    """Everything the in-process engine is asked for: the run's llama.cpp settings and
    sampler chain (their sections' defaults), speculative decoding, and what only the engine's
    callers set. A test or a tool names only what it changes."""

    # greedy + grammar: check the argmax against the grammar first (False: the sampler chain
    # filters the whole vocabulary every token; the same tokens either way)
    fast_grammar: bool = True
    spec: SpecSettings = field(default_factory=SpecSettings)
    # seconds one generate() may take, prefill included (None: no limit); checked at every
    # token, so a prefill that alone passes it ends the turn at its first token
    turn_timeout_s: float | None = None


_FLASH = re.compile(r"llama_context: flash_attn\s*=\s*(\w+)")
# flash attention `auto`, resolved once the context exists (llama-context.cpp resolve_fused_ops)
_FLASH_RESOLVED = re.compile(r"resolve_fused_ops: Flash Attention (enabled|not supported)")
_KV = re.compile(r"llama_kv_cache: size =\s*([\d.]+) MiB \(\s*(\d+) cells.*?K \((\w+)\):"
                 r"\s*[\d.]+ MiB, V \((\w+)\)")
_LOAD_MODE = re.compile(r"load_mode = ([\w+]+)")
_OFFLOADED = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")


def row_bytes(kind: str, elements: int) -> int:
    """Bytes of one row of `elements` values stored as `kind` (whole blocks)."""
    block_bytes, block_elements = _BLOCKS[kind]
    return math.ceil(elements / block_elements) * block_bytes


def kv_bytes_per_token(n_layer: int, n_head_kv: int, k_dim: int, v_dim: int,
                       type_k: str = "f16", type_v: str = "f16") -> int:
    """K and V of one token over all layers, in the cache's own types."""
    return n_layer * n_head_kv * (row_bytes(type_k, k_dim) + row_bytes(type_v, v_dim))


def _proc_status_kb(key: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _is_mapped(path: Path) -> bool | None:
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    return str(path.resolve()) in maps


def _flash_used(asked: str, text: str) -> bool | None:
    """Whether the context computes with flash attention: as set, or what `auto` became."""
    if asked != "auto":
        return {"enabled": True, "disabled": False}.get(asked)
    resolved = _FLASH_RESOLVED.search(text)
    return resolved.group(1) == "enabled" if resolved else None


def read_back(llama_cpp: Any, ctx: Any, model_path: Path, log: list[str]) -> dict[str, Any]:
    """The settings llama.cpp reports for a loaded model and its context: the getters where
    llama.h has them, its load log for the rest, /proc for mlock and mmap. A value that could
    not be read is None, with the reason under `null_reasons`."""
    text = "\n".join(log)
    flash = _FLASH.search(text)
    kv = _KV.search(text)
    load_mode = _LOAD_MODE.search(text)
    offloaded = _OFFLOADED.search(text)
    locked_kb = _proc_status_kb("VmLck")
    gpu = bool(llama_cpp.llama_supports_gpu_offload())
    out: dict[str, Any] = {
        "n_batch": int(llama_cpp.llama_n_batch(ctx)),
        "n_ubatch": int(llama_cpp.llama_n_ubatch(ctx)),
        "threads": int(llama_cpp.llama_n_threads(ctx)),
        "threads_batch": int(llama_cpp.llama_n_threads_batch(ctx)),
        "flash_attn": _flash_used(flash.group(1), text) if flash else None,
        "type_k": kv.group(3) if kv else None,
        "type_v": kv.group(4) if kv else None,
        "kv_cache_cells": int(kv.group(2)) if kv else None,
        # llama.cpp prints MiB with two decimals: this is its rounding, not ours
        "kv_cache_allocated_bytes": round(float(kv.group(1)) * 2**20) if kv else None,
        "load_mode": load_mode.group(1) if load_mode else None,
        "mmap": _is_mapped(model_path),
        "mlock": locked_kb > 0 if locked_kb is not None else None,
        "locked_bytes": locked_kb * 1024 if locked_kb is not None else None,
        "gpu_layers": int(offloaded.group(1)) if offloaded else (0 if not gpu else None),
    }
    reasons = {
        "flash_attn": "llama.cpp logged no flash_attn line (or no resolution of auto)",
        "type_k": "llama.cpp logged no KV cache size line",
        "type_v": "llama.cpp logged no KV cache size line",
        "kv_cache_cells": "llama.cpp logged no KV cache size line",
        "kv_cache_allocated_bytes": "llama.cpp logged no KV cache size line",
        "load_mode": "llama.cpp logged no load_mode",
        "mmap": "/proc/self/maps is not readable",
        "mlock": "/proc/self/status is not readable",
        "locked_bytes": "/proc/self/status is not readable",
        "gpu_layers": "llama.cpp logged no offload line",
    }
    out["null_reasons"] = {k: why for k, why in reasons.items() if out[k] is None}
    return out
