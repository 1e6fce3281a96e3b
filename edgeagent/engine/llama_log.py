"""llama.cpp's own log, kept off the terminal: warnings and errors are collected for the run's
provenance instead of printed.

llama-cpp-python's callback maps ggml's log levels by an older enum (NONE 0, INFO 1, WARN 2,
ERROR 3), while the llama.cpp it bundles logs DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5; so
with `verbose=False` every warning still reached stderr (e.g. "n_ctx_seq (4096) > n_ctx_train
(2048)" on every tiny-model run). This callback reads the levels right and prints nothing;
what the engine could not do is reported by the engine's own errors.

A few INFO lines are kept too, for the settings llama.cpp reports it used when a context is
made (flash attention, the KV cache's types and size, the load mode): there is no getter for
them in llama.h (engine/llamacpp_settings.py reads them back from these lines). Flash attention
`auto` is resolved after the context's settings are printed, in `resolve_fused_ops` (INFO when
enabled, WARN when the backend lacks it): those lines are kept at either level.
"""

from __future__ import annotations

import ctypes
from typing import Any

INFO, WARN, ERROR, CONT = 2, 3, 4, 5
_MAX_LINES = 50
_MAX_INFO_LINES = 200
# the INFO lines that say which settings a model and context were made with
_INFO_PREFIXES = ("llama_context:", "llama_kv_cache: size", "load_tensors:")
# where llama.cpp says what `auto` fused ops (flash attention) resolved to, at INFO or WARN
_RESOLVE_PREFIX = "resolve_fused_ops:"

_callback: Any = None  # kept referenced: llama.cpp calls it from C
_last_level = 0
_collected: list[str] = []
_info: list[str] = []


def install(llama_cpp: Any) -> None:
    """Route llama.cpp's log through the collector (once per process)."""
    global _callback
    if _callback is not None:
        return

    @llama_cpp.llama_log_callback
    def _on_log(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        global _last_level
        if level == CONT:
            level = _last_level
        _last_level = level
        line = text.decode("utf-8", errors="replace").strip()
        if level >= WARN and line and len(_collected) < _MAX_LINES:
            _collected.append(line)
        keep = (level == INFO and line.startswith(_INFO_PREFIXES)) or (
            level in (INFO, WARN) and line.startswith(_RESOLVE_PREFIX))
        if keep and len(_info) < _MAX_INFO_LINES:
            _info.append(line)

    _callback = _on_log
    llama_cpp.llama_log_set(_on_log, ctypes.c_void_p(0))


def take_warnings() -> list[str]:
    """The warnings and errors logged since the last call (each once, in order)."""
    lines = list(dict.fromkeys(_collected))
    _collected.clear()
    return lines


def take_info() -> list[str]:
    """The settings lines (INFO) logged since the last call, in order."""
    lines = list(_info)
    _info.clear()
    return lines
