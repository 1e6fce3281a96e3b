"""What an OpenAI-compatible server says about its own context window, and how it says no.

A server's real context size decides which prompts it accepts; assuming one (our default
8,192 against llama_cpp.server's 2,048) turns every long prompt into an unexplained failure.
Each server tells it in its own place, read once at connect:

- llama-server (and `edgeagent serve`): `GET /props` `default_generation_settings.n_ctx`
  (older builds: top-level `n_ctx`), else `GET /slots` (each slot's `n_ctx`);
- vLLM: `max_model_len` in its `/v1/models` entry (others use `context_length` there);
- Ollama: `GET /api/ps` `context_length` of the loaded model, else `num_ctx` in the
  parameters `POST /api/show` returns;
- llama_cpp.server (llama-cpp-python) says nothing: its refusal does ("This model's
  maximum context length is N tokens"), and only on a non-streamed request; a streamed one
  ends with no finish_reason and the reason stays in the server's log.

A refusal for length is deterministic: sending it again cannot pass. `context_refusal`
recognises the forms these servers use, and `limit_in` reads the window out of them.
"""

from __future__ import annotations

import json
import re
from typing import Any

# the forms servers refuse an over-long prompt with (their messages, error codes and types)
_CONTEXT_REFUSAL = re.compile(
    r"context_length_exceeded|exceed_context_size|maximum context length|context window"
    r"|exceeds? the (?:available )?context|prompt is too long|too many tokens"
    r"|input is too long|longer than the model's context",
    re.IGNORECASE,
)
_LIMIT_IN_TEXT = re.compile(
    r"(?:maximum context length is|context window of|context size of|n_ctx[\"' :=]+)\s*(\d+)",
    re.IGNORECASE,
)
_ENTRY_KEYS = ("max_model_len", "context_length", "context_window", "n_ctx", "max_context_length")


def context_refusal(status: int | None, body: str) -> bool:
    """Is this error the server refusing a prompt too long for its context?"""
    return (status is None or 400 <= status < 500) and bool(_CONTEXT_REFUSAL.search(body))


def limit_in(body: str) -> int | None:
    """The context window a refusal names (`n_ctx` in llama-server's error JSON, "maximum
    context length is N" in the OpenAI wording), if it names one."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict) and _positive(err.get("n_ctx")):
            return int(err["n_ctx"])
    m = _LIMIT_IN_TEXT.search(body)
    return int(m.group(1)) if m else None


def server_context(client: Any, v1_url: str, kind: str, entry: dict[str, Any],
                   model: str | None, timeout: float) -> tuple[int | None, str]:
    """(the server's context window, where it was read) or (None, why it is unknown).
    `client` is an httpx.Client, `entry` the server's first /v1/models entry."""
    root = v1_url[:-3] if v1_url.endswith("/v1") else v1_url
    for key in _ENTRY_KEYS:
        if _positive(entry.get(key)):
            return int(entry[key]), f"/v1/models {key}"
    if kind == "ollama":
        return _ollama_context(client, root, model, timeout)
    props = _get_json(client, root + "/props", timeout)
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        for where, value in (("default_generation_settings.n_ctx",
                              settings.get("n_ctx") if isinstance(settings, dict) else None),
                             ("n_ctx", props.get("n_ctx"))):
            if _positive(value):
                return int(value), f"/props {where}"
    slots = _get_json(client, root + "/slots", timeout)
    if isinstance(slots, list) and slots and isinstance(slots[0], dict):
        if _positive(slots[0].get("n_ctx")):
            return int(slots[0]["n_ctx"]), "/slots n_ctx"
    return None, f"the server ({kind}) does not report its context size"


def _ollama_context(client: Any, root: str, model: str | None,
                    timeout: float) -> tuple[int | None, str]:
    running = _get_json(client, root + "/api/ps", timeout)
    loaded = running.get("models") if isinstance(running, dict) else None
    for m in loaded if isinstance(loaded, list) else []:
        ours = isinstance(m, dict) and model in (None, m.get("name"), m.get("model"))
        if ours and _positive(m.get("context_length")):
            return int(m["context_length"]), "/api/ps context_length"
    try:
        r = client.post(root + "/api/show", json={"model": model}, timeout=timeout)
        params = str(r.json().get("parameters") or "") if r.status_code == 200 else ""
    except Exception:  # noqa: BLE001 - any failure here only means "not reported"
        params = ""
    m = re.search(r"^\s*num_ctx\s+(\d+)", params, re.MULTILINE)
    if m:
        return int(m.group(1)), "/api/show parameters num_ctx"
    return None, "Ollama does not report the loaded model's context size"


def _get_json(client: Any, url: str, timeout: float) -> Any:
    try:
        r = client.get(url, timeout=timeout)
        return r.json() if r.status_code == 200 else None
    except Exception:  # noqa: BLE001 - an absent route, a non-JSON page: not reported
        return None


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
