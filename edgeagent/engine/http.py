"""OpenAI-compatible endpoint engine: the same agent loop over `/v1/chat/completions`.

llama-server, Ollama, vLLM or llama-cpp-python's own server are driven with streamed chat
completions (SSE). The client view is timed here, per delta: TTFT is the first content (or
tool-call) delta after the request was sent, inter-token latency the gaps between deltas, TPOT
(e2e - TTFT) / (output tokens - 1). The server's own numbers are read when it sends them
(llama-server `timings`, OpenAI `usage` with `prompt_tokens_details.cached_tokens`) and kept
beside the client view, so the HTTP path's overhead can be told apart from inference.

Token counts the server does not send are counted with the model's own vocabulary when a GGUF
is given (`tokenizer`, loaded vocab-only), otherwise estimated from characters and labelled so.

The tool-call constraint is sent in the strongest form the server takes: llama.cpp servers get
the very GBNF the in-process engine uses (`grammar`), others an OpenAI `response_format` JSON
schema; a server that rejects one form (400/422) is asked again with the next weaker one, down
to prompt-only.

Native tool calls (generate() given `tools`): the request carries OpenAI `tools` and native
messages (assistant `tool_calls`, `tool` messages by id; a turn generated live goes back as
the very text the model wrote, so a llama.cpp server's prompt cache still sees an extension).
llama-cpp-python's server only renders `tools`, so it gets the native GBNF as well. llama-server
gets `tools`, `tool_choice: "none"` and the native GBNF whenever the family is known (a
tokenizer was given): it does not enforce `tool_choice: "required"` (ggml-org/llama.cpp#27217)
and refuses a custom grammar beside a tool choice, and with "none" it still renders the tools.
Others (vLLM, Ollama, llama-server without a tokenizer) constrain and parse the calls
themselves, asked with `tool_choice: "required"`. A caller that gives its own `tool_choice`
(tools without a grammar: MLPerf's accuracy phase asks "auto") has it sent as given, to every
server. The calls come back as `tool_calls` deltas, or, from a server that does not parse
them, are read out of the text in the template's family syntax; `extra["calls_source"]` says
which ("server", "text", None when there is no call), as a scorer that counts only a server's
structured calls (MLPerf's) must tell them apart.

Connection errors, 429/5xx and broken streams are retried with backoff inside
a per-turn deadline (600 s by default, as MLPerf's); anything else ends the turn as an
EngineError carrying the server's own message, so the run never hangs.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..settings import values_of
from .base import (
    ContextOverflow,
    EngineError,
    Generation,
    Grammar,
    Message,
    ToolCall,
    TurnTimeout,
    check_tool_choice,
    gbnf_of,
    json_schema_of,
)
from .endpoint_settings import CONSTRAINTS, EndpointConfig
from .llamacpp_settings import LlamaConfig, SamplingConfig
from .server_window import context_refusal, limit_in, server_context
from .tool_format import call_id, parse_tool_calls
from .vocab import Vocabulary

# weakest last; a server that rejects one form is asked with the next
_DOWNGRADE = ("gbnf", "json_schema", "json_object", "none")
# /v1/models `owned_by` -> the server behind the endpoint
_OWNERS = {
    "llamacpp": "llama-server",
    "me": "llama-cpp-python",
    "vllm": "vllm",
    "library": "ollama",
    "ollama": "ollama",
    "edgeagent": "edgeagent-serve",
}
# llama.cpp underneath: GBNF grammars, cache_prompt and llama.cpp's sampling fields
_LLAMA_CPP_KINDS = {"llama-server", "llama-cpp-python", "edgeagent-serve"}
_RETRY_STATUS = {408, 425, 429, 500, 502, 503, 504}
_CHARS_PER_TOKEN = 4.0  # the usual rule of thumb for estimated counts
# the words a task's termination detail carries when the server refused its prompt for
# length (the verdict, results.validity, looks for them)
SERVER_REFUSED_CONTEXT = "refused the prompt as longer than its context"


@dataclass(frozen=True, kw_only=True)
class EndpointSettings(SamplingConfig):
    """What the HTTP engine is built with: the endpoint (its section's defaults), the sampler
    chain the requests carry (repeat_penalty to llama.cpp servers only: not an OpenAI
    parameter), the context it is checked against, and the tokenizer resolved to a file."""

    url: str
    api_key_env: str | None = EndpointConfig.api_key_env
    served_model: str | None = EndpointConfig.served_model
    constraint: str = EndpointConfig.endpoint_constraint
    turn_timeout_s: float = EndpointConfig.turn_timeout_s
    retries: int = EndpointConfig.endpoint_retries
    backoff_s: float = 0.5
    connect_timeout_s: float = 10.0
    n_ctx: int = LlamaConfig.n_ctx
    tokenizer: Path | None = None


def base_url(url: str) -> str:
    """`http://host:port`, `.../v1` or `.../v1/chat/completions` -> `.../v1`."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"--endpoint {url!r} is not an http(s) URL (give e.g. http://127.0.0.1:8080/v1)"
        )
    if url.endswith("/chat/completions"):
        url = url[: -len("/chat/completions")]
    return url if url.endswith("/v1") else url + "/v1"


def server_locality(url: str) -> str:
    """'local' when the endpoint's host is this machine (its power is then inside a
    whole-device measure), else 'remote'."""
    host = urlsplit(url).hostname or ""
    if host in ("localhost", socket.gethostname()):
        return "local"
    try:
        addrs = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return "remote"
    local: set[str] = set()
    try:
        import psutil

        local = {a.address for nic in psutil.net_if_addrs().values() for a in nic}
    except Exception:  # noqa: BLE001 - psutil missing or restricted: loopback still decides
        pass
    for addr in addrs:
        try:
            if ipaddress.ip_address(addr.split("%")[0]).is_loopback or addr in local:
                return "local"
        except ValueError:
            continue
    return "remote"


def server_prompt_ids(vocab: Vocabulary, messages: list[Message],
                      tools: Sequence[Mapping[str, Any]] | None = None) -> list[int]:
    """The prompt ids the server makes of `messages`, counted with the model's tokenizer: the
    server re-tokenises assistant text (exact ids are not sent, so not used here); a live
    turn goes as its raw text (wire_message), so it is counted as that."""
    plain = [Message(m.role, m.content) if m.tokens is not None
             else replace(m, tokens=None) for m in messages]
    return vocab.prompt_tokens(plain, tools)


class _Retry(Exception):
    """Safe to send again: nothing of this turn was used."""


class _Rejected(Exception):
    """400/422: the request itself was refused (maybe its constraint form)."""


class _TooLong(Exception):
    """The server refused the prompt as longer than its context: sending it again cannot
    pass. Carries the server's message and its raw error body."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


def wire_message(m: Message) -> dict[str, Any]:
    """A message as the request carries it. An assistant turn generated live (it has its
    ids) goes as the text the model wrote, its calls in their native syntax inside: the
    server's template renders it exactly as it was generated, so the prompt extends the
    previous one; a recorded turn goes with OpenAI `tool_calls`."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.role == "assistant" and m.tokens is not None:
        return {"role": m.role, "content": m.text}
    if m.tool_calls:
        out["tool_calls"] = [c.wire_form() for c in m.tool_calls]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    if m.reasoning_content is not None:
        out["reasoning_content"] = m.reasoning_content
    return out


@dataclass
class _Stream:
    text: str = ""
    # native tool calls streamed as deltas, by index: [id, name, arguments so far]
    calls: dict[int, list[str]] = field(default_factory=dict)
    chunk_times: list[int] = field(default_factory=list)
    finish: str | None = None
    usage: dict[str, Any] | None = None
    timings: dict[str, Any] | None = None
    model: str | None = None
    done: bool = False
    t_sent: int = 0
    t_finish: int = 0  # the delta that carried finish_reason
    t_done: int = 0
    # a live display's listener: each content or tool-call delta's text, after its timestamp
    on_token: Callable[[str], None] | None = None


def _server_message(status: int, body: bytes) -> str:
    text = body.decode(errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return f"HTTP {status}: {text[:300] or 'no body'}"
    err = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(err, dict):
        msg = err.get("message") or err.get("detail") or json.dumps(err)[:300]
    else:
        msg = str(err)
    return f"HTTP {status}: {str(msg)[:300]}"


class HttpEngine:
    """An OpenAI-compatible server as an Engine."""

    system_info = None  # the server's build is not visible from here

    def __init__(self, settings: EndpointSettings) -> None:
        try:
            import httpx
        except ImportError as exc:
            raise ConfigError(
                f"--endpoint needs httpx ({exc}); install it with pip install 'edgeagent[endpoint]'"
            ) from exc
        if settings.constraint not in CONSTRAINTS:
            raise ConfigError(
                f"endpoint_constraint {settings.constraint!r}: use one of {', '.join(CONSTRAINTS)}"
            )
        self._httpx = httpx
        self.settings = settings
        self.url = base_url(settings.url)
        headers = {"Accept": "text/event-stream"}
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise ConfigError(
                    f"--api-key-env {settings.api_key_env}: that environment variable is not "
                    "set (export it, or drop the flag for a server without a key)"
                )
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(headers=headers, follow_redirects=True)
        self.locality = server_locality(self.url)
        self.server_kind, entry = self._probe()
        self.served_model = settings.served_model or entry.get("id")
        told, where = server_context(self._client, self.url, self.server_kind, entry,
                                     self.served_model, settings.connect_timeout_s)
        # the server's own window decides what it accepts; ours is only an assumption
        self.n_ctx = told or settings.n_ctx
        self.n_ctx_source = where if told else f"assumed n_ctx {settings.n_ctx}: {where}"
        if settings.constraint == "auto":
            self.constraint = "gbnf" if self.server_kind in _LLAMA_CPP_KINDS else "json_schema"
        else:
            self.constraint = settings.constraint
        self.constraint_changes: list[str] = []
        self._vocab = Vocabulary(settings.tokenizer) if settings.tokenizer else None
        # the template's tool-call family, known when the tokenizer GGUF is given
        self.tool_family = self._vocab.tool_family if self._vocab is not None else None
        self.tool_markers = self._vocab.tool_markers if self._vocab is not None else {}
        self._calls_made = 0
        self._previous_prompt: list[int] = []

    # -- setup --------------------------------------------------------------------------
    def _probe(self) -> tuple[str, dict[str, Any]]:
        """GET /v1/models: is anything there, which server is it, and its first entry (the
        model it serves: `id`, and maybe its context length)."""
        try:
            r = self._client.get(self.url + "/models", timeout=self.settings.connect_timeout_s)
        except self._httpx.HTTPError as exc:
            raise ConfigError(
                f"--endpoint {self.settings.url}: cannot reach {self.url}/models ({exc}); "
                "is the server running and the URL right?"
            ) from exc
        if r.status_code in (401, 403):
            raise ConfigError(
                f"--endpoint {self.settings.url}: {_server_message(r.status_code, r.content)} "
                "(give the key's environment variable with --api-key-env)"
            )
        try:
            data = r.json().get("data") or []
            first = data[0] if data and isinstance(data[0], dict) else {}
        except (ValueError, AttributeError):
            return "unknown", {}
        return _OWNERS.get(str(first.get("owned_by", "")).lower(), "unknown"), first

    @contextlib.contextmanager
    def sampling_override(self, temperature: float | None = None, top_p: float | None = None,
                          seed: int | None = None) -> Iterator[None]:
        """Other sampling for the requests sent inside the block (a sampled draft), the
        settings restored after; as the in-process engine's."""
        saved = self.settings
        changes = {k: v for k, v in (("temperature", temperature), ("top_p", top_p),
                                     ("seed", seed)) if v is not None}
        self.settings = replace(saved, **changes)
        try:
            yield
        finally:
            self.settings = saved

    def provenance(self) -> dict[str, Any]:
        scope = (
            "the server runs on this device: a whole-device power source includes its work"
            if self.locality == "local"
            else "the server is remote: energy covers this device (the client) only, "
            "the server's power is not included"
        )
        return {
            "backend": f"OpenAI-compatible endpoint ({self.server_kind})",
            "endpoint": self.url,
            "server_kind": self.server_kind,
            "served_model": self.served_model,
            "server_locality": self.locality,
            "energy_scope": scope,
            "api_key_env": self.settings.api_key_env,
            "constraint": self.constraint,
            "constraint_changes": list(self.constraint_changes),
            "cache_prompt_sent": self.server_kind in _LLAMA_CPP_KINDS,
            "tool_family": self.tool_family,
            "tokenizer": str(self.settings.tokenizer) if self.settings.tokenizer else None,
            "token_counts": "the server's where sent; else prompt: "
            + ("the tokenizer" if self._vocab else "estimated from characters")
            + "; output: one per streamed delta",
            "n_ctx": self.n_ctx,
            "n_ctx_source": self.n_ctx_source,
            "seed": self.settings.seed,
            "temperature": self.settings.temperature,
            "top_p": self.settings.top_p,
            "repeat_penalty": self.settings.repeat_penalty
            if self.server_kind in _LLAMA_CPP_KINDS else None,
            "turn_timeout_s": self.settings.turn_timeout_s,
            "retries": self.settings.retries,
            "httpx": getattr(self._httpx, "__version__", None),
        }

    # -- tokens -------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        if self._vocab is not None:
            return len(self._vocab.ids(text))
        return max(1, round(len(text) / _CHARS_PER_TOKEN)) if text else 0

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        if self._vocab is not None:
            ids = self._vocab.ids(text)
            n, cut = len(ids), None
        else:
            n = self.count_tokens(text)
            ids, cut = [], int(max_tokens * _CHARS_PER_TOKEN)
        if n <= max_tokens:
            return text
        marker = f"\n[... {n} tokens truncated ...]\n"
        keep = max(0, max_tokens - self.count_tokens(marker))
        head_n, tail_n = keep * 2 // 3, keep - keep * 2 // 3
        if self._vocab is not None:
            head, tail = self._vocab.detok(ids[:head_n]), self._vocab.detok(ids[n - tail_n :])
            dropped = n - head_n - tail_n
        else:
            assert cut is not None
            chars = int(keep * _CHARS_PER_TOKEN)
            head, tail = text[: chars * 2 // 3], text[len(text) - (chars - chars * 2 // 3) :]
            dropped = n - keep
        return head + marker.replace(str(n), str(dropped)) + tail

    # -- generation ---------------------------------------------------------------------
    def _body(self, messages: list[Message], max_tokens: int, mode: str,
              grammar: Grammar | str | None,
              tools: Sequence[Mapping[str, Any]] | None = None,
              tool_choice: str | None = None,
              ) -> dict[str, Any]:
        wire = [wire_message(m) for m in messages]
        if self.server_kind == "llama-cpp-python":
            wire = [self._as_content(m, w, tools) for m, w in zip(messages, wire, strict=True)]
            # its request schema refuses a null content (a turn that is calls alone)
            wire = [{k: v for k, v in w.items() if v is not None} for w in wire]
        body: dict[str, Any] = {
            "messages": wire,
            "max_tokens": max_tokens,
            "temperature": self.settings.temperature,
            "seed": self.settings.seed,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self.served_model:
            body["model"] = self.served_model
        if self.server_kind in _LLAMA_CPP_KINDS:
            # llama.cpp's own sampling knobs, as the in-process engine sets them
            body.update(cache_prompt=True, repeat_penalty=self.settings.repeat_penalty, top_k=40,
                        top_p=self.settings.top_p, min_p=0.05)
        elif self.settings.temperature > 0:
            body["top_p"] = self.settings.top_p
        if tools and self._tool_fields(body, tools, mode, grammar, tool_choice):
            return body
        if grammar is None or mode == "none":
            return body
        if mode == "gbnf":
            body["grammar"] = gbnf_of(grammar)
            return body
        schema = json_schema_of(grammar)
        if schema is None:
            return body  # a bare GBNF string has no schema form: prompt-only
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "tool_call", "schema": schema, "strict": True},
            }
        else:
            body["response_format"] = {"type": "json_object", "schema": schema}
        return body

    def _tool_fields(self, body: dict[str, Any], tools: Sequence[Mapping[str, Any]],
                     mode: str, grammar: Grammar | str | None,
                     tool_choice: str | None) -> bool:
        """The tools and how a call is asked for, into `body`; True when that is the whole
        constraint (else the grammar's own form follows: llama-cpp-python's server)."""
        body["tools"] = [dict(t) for t in tools]
        if tool_choice is not None:
            # the caller's own choice (no grammar beside it: check_tool_choice), as given
            body["tool_choice"] = tool_choice
            return True
        if (self.server_kind in ("llama-server", "edgeagent-serve") and grammar is not None
                and mode == "gbnf"):
            # llama-server accepts tool_choice "required" but does not enforce it
            # (ggml-org/llama.cpp#27217; measured here: Qwen2.5-Coder-0.5B wrote free text
            # to the token budget on every turn) and refuses a custom grammar beside a
            # tool choice. With "none" it still renders the tools and takes our GBNF of one
            # native call: the in-process engine's constraint, so both decode alike.
            # `edgeagent serve` is asked the same way, so the two serve the same request
            body["tool_choice"] = "none"
            body["grammar"] = gbnf_of(grammar)
            return True
        if self.server_kind != "llama-cpp-python":
            # the server constrains and parses the calls itself (llama-server refuses a
            # custom grammar beside tools)
            body["tool_choice"] = "required"
            return True
        return False

    def _as_content(self, m: Message, wire: dict[str, Any],
                    tools: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
        """A recorded tool-call turn for llama-cpp-python's server, whose request schema
        takes arguments only as a JSON string, which its template then renders quoted: the
        turn goes as the text our template writes for it (arguments as objects, as MLPerf
        renders them), so the server's prompt is the one the in-process engine builds."""
        if not m.tool_calls or m.tokens is not None or self._vocab is None:
            return wire  # a live turn already goes as the text the model wrote
        text = self._vocab.template.turn_text(m, tools)
        return {"role": "assistant", "content": text} if text is not None else wire

    def _stream(self, body: dict[str, Any], deadline: float,
                on_token: Callable[[str], None] | None = None) -> _Stream:
        httpx = self._httpx
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TurnTimeout(self.settings.turn_timeout_s, "no answer")
        timeout = httpx.Timeout(
            remaining, connect=min(self.settings.connect_timeout_s, remaining)
        )
        out = _Stream(t_sent=time.monotonic_ns(), on_token=on_token)
        try:
            with self._client.stream(
                "POST", self.url + "/chat/completions", json=body, timeout=timeout
            ) as r:
                if r.status_code >= 400:
                    raw = r.read()
                    msg = _server_message(r.status_code, raw)
                    if context_refusal(r.status_code, raw.decode(errors="replace")):
                        raise _TooLong(msg, raw.decode(errors="replace"))
                    if r.status_code in _RETRY_STATUS:
                        raise _Retry(msg)
                    if r.status_code in (400, 422):
                        raise _Rejected(msg)
                    raise EngineError(f"the endpoint refused the request: {msg}")
                for line in r.iter_lines():
                    self._line(line, out)
                    if out.done:
                        break
                    if time.monotonic() > deadline:
                        raise TurnTimeout(self.settings.turn_timeout_s,
                                          "the answer did not finish")
        except httpx.TimeoutException as exc:
            # the whole turn's budget went into this read: sending again cannot help
            raise TurnTimeout(self.settings.turn_timeout_s,
                              f"the endpoint stalled ({type(exc).__name__}): no data") from exc
        except (httpx.TransportError, httpx.StreamError) as exc:
            raise _Retry(f"connection failed: {type(exc).__name__}: {exc}") from exc
        out.t_done = time.monotonic_ns()
        if not out.done and out.finish is None:
            if not out.text and not out.calls:
                self._diagnose(body, deadline)
            raise _Retry("the stream ended before the answer finished (no finish_reason)")
        return out

    def _diagnose(self, body: dict[str, Any], deadline: float) -> None:
        """A stream cut before its first token: llama_cpp.server ends it so when it refuses
        the prompt (its reason goes to its log only). Asked once more without streaming and
        for one token, it answers with the reason: a refusal that cannot pass is raised as
        such; anything else (an answer, a 5xx, no connection) leaves the retry to go on."""
        quick = {k: v for k, v in body.items() if k != "stream_options"}
        quick.update(stream=False, max_tokens=1)
        # twice: the first try may go out on the kept-alive connection the server just closed
        for _ in range(2):
            try:
                r = self._client.post(self.url + "/chat/completions", json=quick,
                                      timeout=max(1.0, deadline - time.monotonic()))
                break
            except self._httpx.TransportError:
                continue
            except self._httpx.HTTPError:
                return
        else:
            return
        if 400 <= r.status_code < 500 and r.status_code not in _RETRY_STATUS:
            msg = _server_message(r.status_code, r.content)
            if context_refusal(r.status_code, r.text):
                raise _TooLong(msg, r.text)
            raise _Rejected(msg)

    def _line(self, line: str, out: _Stream) -> None:
        line = line.strip()
        if not line or line.startswith(":"):
            return
        if line.startswith("error:"):
            raise _Retry(f"the server sent an error event: {line[6:].strip()[:300]}")
        if not line.startswith("data:"):
            return  # event:, id:, retry: fields carry nothing we use
        data = line[5:].strip()
        if data == "[DONE]":
            out.done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise _Retry(f"malformed stream: not JSON: {data[:120]!r}") from exc
        if not isinstance(chunk, dict):
            raise _Retry(f"malformed stream: {data[:120]!r}")
        if "error" in chunk:
            err = chunk["error"]
            msg = err.get("message", err) if isinstance(err, dict) else err
            if context_refusal(None, data):
                raise _TooLong(f"the server stopped the stream: {str(msg)[:300]}", data)
            raise EngineError(f"the endpoint failed while generating: {str(msg)[:300]}")
        out.model = chunk.get("model") or out.model
        if isinstance(chunk.get("usage"), dict):
            out.usage = chunk["usage"]
        if isinstance(chunk.get("timings"), dict):
            out.timings = chunk["timings"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            piece = delta.get("content") or ""
            for n, call in enumerate(delta.get("tool_calls") or []):
                fn = call.get("function") or {}
                slot = out.calls.setdefault(int(call.get("index", n)), ["", "", ""])
                slot[0] = call.get("id") or slot[0]
                slot[1] = fn.get("name") or slot[1]
                slot[2] += fn.get("arguments") or ""
                piece += fn.get("arguments") or ""
            if piece:
                out.chunk_times.append(time.monotonic_ns())
                out.text += piece
                if out.on_token is not None:
                    out.on_token(piece)
            if choice.get("finish_reason") and out.finish is None:
                out.finish = choice["finish_reason"]
                out.t_finish = time.monotonic_ns()

    def generate(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        grammar: Grammar | str | None = None,
        max_context_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> Generation:
        check_tool_choice(tool_choice, tools, grammar)
        t_start = time.monotonic_ns()
        deadline = time.monotonic() + self.settings.turn_timeout_s
        prompt_ids = (server_prompt_ids(self._vocab, messages, tools) if self._vocab is not None
                      else None)
        if prompt_ids is not None:
            limit = min(self.n_ctx, max_context_tokens or self.n_ctx)
            if len(prompt_ids) + max_tokens > limit:
                raise ContextOverflow(len(prompt_ids) + max_tokens, limit)
        mode = self.constraint if grammar is not None else "none"
        retried: list[str] = []  # why each attempt that can pass failed, in order
        last_error = ""
        while True:
            body = self._body(messages, max_tokens, mode, grammar, tools, tool_choice)
            try:
                stream = self._stream(body, deadline, on_token)
            except _TooLong as exc:
                raise self._context_refused(exc, prompt_ids, messages, max_tokens) from exc
            except _Rejected as exc:
                nxt = _DOWNGRADE.index(mode) + 1
                if self.settings.constraint != "auto" or mode == "none" or nxt >= len(_DOWNGRADE):
                    raise EngineError(f"the endpoint refused the request: {exc}") from exc
                # maybe the constraint form: ask again with the next weaker one
                last_error = str(exc)
                mode = _DOWNGRADE[nxt]
                continue
            except _Retry as exc:
                last_error = str(exc)
                retried.append(last_error[:300])
                wait = self.settings.backoff_s * 2 ** (len(retried) - 1)
                if len(retried) > self.settings.retries or time.monotonic() + wait > deadline:
                    raise EngineError(
                        f"the endpoint failed after {len(retried)} attempt(s): {last_error}"
                    ) from exc
                time.sleep(wait)
                continue
            break
        if grammar is not None and mode != self.constraint:
            self.constraint_changes.append(f"{self.constraint} -> {mode}: {last_error[:200]}")
            self.constraint = mode
        gen = self._generation(stream, messages, prompt_ids, t_start, retried, mode, grammar)
        if not tools:
            return gen
        calls, error, source = self._native_calls(stream)
        return replace(gen, tool_calls=calls, tool_call_error=error,
                       extra={**gen.extra, "calls_source": source})

    def _context_refused(self, exc: _TooLong, prompt_ids: list[int] | None,
                         messages: list[Message], max_tokens: int) -> ContextOverflow:
        """The task ends at the context limit with the server's own words and the fix; the
        window the refusal names replaces the assumed one for the tasks after it."""
        learned = limit_in(exc.raw)
        if learned is not None and learned != self.n_ctx:
            self.n_ctx, self.n_ctx_source = learned, "the server's refusal of a long prompt"
        prompt = _context_count(None, prompt_ids, messages)[0]
        return ContextOverflow(
            prompt + max_tokens, self.n_ctx,
            f"the server at {self.url} {SERVER_REFUSED_CONTEXT} "
            f"({exc}); start it with a larger context (llama-server -c N, "
            "python -m llama_cpp.server --n_ctx N) or lower --max-context-tokens")

    def _native_calls(self, s: _Stream
                      ) -> tuple[tuple[ToolCall, ...], str | None, str | None]:
        """The turn's calls, why none could be read, and where they came from: the server's
        `tool_calls` ("server"), else read out of the text ("text"); None: no call."""
        if s.calls:
            calls = tuple(
                ToolCall(cid or call_id(self._calls_made + i), name, args or "{}")
                for i, (cid, name, args) in enumerate(s.calls[k] for k in sorted(s.calls))
            )
            self._calls_made += len(calls)
            return calls, None, "server"
        parsed = parse_tool_calls(self.tool_family, s.text, self._calls_made)
        self._calls_made += len(parsed.calls)
        return parsed.calls, parsed.error, "text" if parsed.calls else None

    def _reused(self, server_cached: Any, prompt_ids: list[int] | None, context: int) -> int:
        """Prompt tokens the server served from its cache: its own count, else (a llama.cpp
        server) the common prefix with the previous prompt, else 0."""
        if server_cached is not None:
            return int(server_cached)
        if prompt_ids is not None and self.server_kind in _LLAMA_CPP_KINDS:
            # llama.cpp servers keep the longest common prefix with the previous prompt
            reused = _common_prefix(self._previous_prompt, prompt_ids)
            return min(reused, context - 1) if context else 0
        return 0

    def _generation(
        self, s: _Stream, messages: list[Message], prompt_ids: list[int] | None, t_start: int,
        retried: list[str], mode: str, grammar: Grammar | str | None,
    ) -> Generation:
        usage, timings = s.usage or {}, s.timings or {}
        details = usage.get("prompt_tokens_details") or {}
        server_prompt = usage.get("prompt_tokens")
        if server_prompt is None and "prompt_n" in timings:
            server_prompt = int(timings["prompt_n"]) + int(timings.get("cache_n") or 0)
        server_cached = timings.get("cache_n", details.get("cached_tokens"))
        server_out = usage.get("completion_tokens", timings.get("predicted_n"))
        stopped = s.finish == "stop"
        out_ids = self._vocab.ids(s.text) if self._vocab is not None else []
        context, prompt_source = _context_count(server_prompt, prompt_ids, messages)
        # output: the server's count, else one streamed delta per sampled token (llama.cpp,
        # vLLM and Ollama stream so; re-tokenising the text can differ from the ids sampled)
        # plus the end token, which the in-process engine counts too
        if server_out is not None:
            decoded, output_source = int(server_out), "server"
        else:
            decoded, output_source = len(s.chunk_times) + int(stopped), "stream deltas"
        source = f"prompt: {prompt_source}; output: {output_source}"
        reused = self._reused(server_cached, prompt_ids, context)
        if prompt_ids is not None:
            self._previous_prompt = prompt_ids + out_ids
        times = list(s.chunk_times)
        if stopped and s.t_finish:
            # the end-of-generation token was sampled when the finish arrived: timed and
            # counted, as the in-process engine times and counts it
            times.append(s.t_finish)
        t_first = times[0] if times else s.t_done
        t_end = times[-1] if times else s.t_done
        extra: dict[str, Any] = {
            "token_counts": source,
            "reused_source": "server" if server_cached is not None
            else ("client common prefix" if reused else "unknown"),
            "server_prompt_tokens": server_prompt,
            "server_cached_tokens": server_cached,
            "server_decoded_tokens": server_out,
            "request_ms": (s.t_done - s.t_sent) / 1e6,
            "retries": len(retried),
            "retry_errors": retried,
            "constraint": mode if grammar is not None else "none",
            "chunks": len(s.chunk_times),
            "served_model": s.model,
        }
        return Generation(
            text=s.text,
            tokens=tuple(out_ids),
            finish_reason="length" if s.finish == "length" else "stop",
            context_tokens=context,
            reused_tokens=max(0, min(reused, context)),
            prefill_tokens=context - max(0, min(reused, context)),
            decoded_tokens=decoded,
            t_start_ns=t_start,
            t_prefill_start_ns=s.t_sent,
            t_first_token_ns=t_first,
            t_end_ns=t_end,
            token_times_ns=tuple(times),
            engine_prefill_ms=_float(timings.get("prompt_ms")),
            engine_decode_ms=_float(timings.get("predicted_ms")),
            spec_drafted=_int(timings.get("draft_n")),
            spec_accepted=_int(timings.get("draft_n_accepted")),
            extra=extra,
        )

    def close(self) -> None:
        self._client.close()
        if self._vocab is not None:
            self._vocab.close()


def _context_count(server_prompt: Any, prompt_ids: list[int] | None,
                   messages: list[Message]) -> tuple[int, str]:
    """The prompt's length and where it came from: the server's own count, else our
    tokenizer's, else an estimate from its characters."""
    if server_prompt is not None:
        return int(server_prompt), "server"
    if prompt_ids is not None:
        return len(prompt_ids), "tokenizer"
    chars = sum(len(m.text) for m in messages)
    return round(chars / _CHARS_PER_TOKEN), "estimated"


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) else None


@dataclass(frozen=True)
class EndpointModel:
    """What the run records as its model when the model lives behind an endpoint."""

    name: str | None
    path: Path | None  # the tokenizer GGUF, if one was given
    sha256: str | None
    source: str = "endpoint"


def endpoint_engine(config: Any, *, progress: bool = True) -> tuple[EndpointModel, HttpEngine]:
    """The engine and the model record for a RunConfig with `endpoint` set."""
    tokenizer = None
    sha = None
    if config.tokenizer:
        from ..models import resolve_model

        resolved = resolve_model(config.tokenizer, progress=progress)
        tokenizer, sha = resolved.path, resolved.sha256
    engine = HttpEngine(EndpointSettings(
        url=config.endpoint, api_key_env=config.api_key_env, served_model=config.served_model,
        constraint=config.endpoint_constraint, turn_timeout_s=config.turn_timeout_s,
        retries=config.endpoint_retries, n_ctx=config.n_ctx, tokenizer=tokenizer,
        **values_of(SamplingConfig, config)))
    name = engine.served_model or (tokenizer.stem if tokenizer else None) or "endpoint"
    return EndpointModel(name, tokenizer, sha), engine
