"""OpenAI chat-completions on the wire: a request body read into a ChatRequest (or a WireError
naming the bad field, as OpenAI's error JSON does), and a Generation written back as a
response, or as server-sent-event chunks when the client streams.

The response carries `usage` with `prompt_tokens_details.cached_tokens` (OpenAI's name for
the KV-reused prefix) and llama-server's `timings` block, so a client that reads either gets
the same counts the run directory records.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from ..engine import Generation, Message, ToolCall

ROLES = ("system", "developer", "user", "assistant", "tool")
DEFAULT_MAX_TOKENS = 1024


class WireError(Exception):
    """A request the server refuses: HTTP status, OpenAI's error type and code, the field."""

    def __init__(self, status: int, message: str, *, param: str | None = None,
                 code: str | None = None, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code, self.kind = (
            status, message, param, code, kind)

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.kind, "param": self.param,
                          "code": self.code}}


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: tuple[Message, ...]
    tools: tuple[dict[str, Any], ...] | None
    tool_choice: str | dict[str, Any]  # auto | none | required | {"type": "function", ...}
    max_tokens: int | None  # None: the server's default budget
    temperature: float | None
    top_p: float | None
    seed: int | None
    stop: tuple[str, ...]
    stream: bool
    include_usage: bool  # stream_options.include_usage
    # an output constraint: llama.cpp's `grammar` (GBNF) or response_format's JSON schema
    grammar: str | None = None
    json_schema: dict[str, Any] | None = None

    def sampling(self) -> dict[str, Any]:
        """The sampling fields the client sent (None where it sent none)."""
        return {"temperature": self.temperature, "top_p": self.top_p, "seed": self.seed}


def parse_chat_request(body: bytes) -> ChatRequest:
    """The request, or a WireError saying which field is wrong and how."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise WireError(400, f"the body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise WireError(400, "the body must be a JSON object")
    messages = data.get("messages")
    if not isinstance(messages, list) or not messages:
        raise WireError(400, "'messages' must be a non-empty array", param="messages")
    tools = _tools(data.get("tools"))
    if data.get("n") not in (None, 1):
        raise WireError(400, "'n' must be 1: one device serves one answer at a time", param="n")
    stream_options = data.get("stream_options") or {}
    return ChatRequest(
        model=str(data.get("model") or ""),
        messages=tuple(_message(m, i) for i, m in enumerate(messages)),
        tools=tools,
        tool_choice=_tool_choice(data.get("tool_choice"), tools),
        max_tokens=_positive_int(data, "max_completion_tokens", "max_tokens"),
        temperature=_number(data, "temperature", 0.0, 2.0),
        top_p=_number(data, "top_p", 0.0, 1.0),
        seed=_int_or_none(data, "seed"),
        stop=_stop(data.get("stop")),
        stream=_bool(data, "stream"),
        include_usage=isinstance(stream_options, dict)
        and bool(stream_options.get("include_usage")),
        grammar=_grammar(data.get("grammar")),
        json_schema=_response_schema(data.get("response_format")),
    )


def _grammar(raw: Any) -> str | None:
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise WireError(400, "'grammar' must be a GBNF string", param="grammar")
    return raw


def _response_schema(raw: Any) -> dict[str, Any] | None:
    """response_format: text (none), json_schema (its schema), json_object (its schema if
    one is given, as llama-server takes it, else any JSON object)."""
    if raw is None:
        return None
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind == "text":
        return None
    if kind == "json_schema":
        schema = (raw.get("json_schema") or {}).get("schema")
        if isinstance(schema, dict):
            return schema
    elif kind == "json_object":
        schema = raw.get("schema")
        return schema if isinstance(schema, dict) else {"type": "object"}
    raise WireError(400, "response_format must be {type: text | json_object | json_schema "
                    "(with json_schema.schema)}", param="response_format")


def _message(raw: Any, index: int) -> Message:
    param = f"messages[{index}]"
    if not isinstance(raw, dict):
        raise WireError(400, f"{param} must be an object", param=param)
    role = raw.get("role")
    if role not in ROLES:
        raise WireError(400, f"{param}.role must be one of {', '.join(ROLES)}, not {role!r}",
                        param=f"{param}.role")
    calls = _tool_calls(raw.get("tool_calls"), param) if role == "assistant" else None
    content = _content(raw.get("content"), param)
    if content is None and not calls:
        raise WireError(400, f"{param}.content is missing", param=f"{param}.content")
    return Message("system" if role == "developer" else role, content, tool_calls=calls,
                   tool_call_id=raw.get("tool_call_id") if role == "tool" else None,
                   reasoning_content=raw.get("reasoning_content"))


def _content(content: Any, param: str) -> str | None:
    """Text content, or the text parts of a content array joined (images are refused)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text":
                raise WireError(400, f"{param}.content: only text parts are supported",
                                param=f"{param}.content")
            texts.append(str(part.get("text", "")))
        return "".join(texts)
    raise WireError(400, f"{param}.content must be a string or an array of text parts",
                    param=f"{param}.content")


def _tool_calls(raw: Any, param: str) -> tuple[ToolCall, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise WireError(400, f"{param}.tool_calls must be an array", param=f"{param}.tool_calls")
    calls = []
    for i, call in enumerate(raw):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise WireError(400, f"{param}.tool_calls[{i}] needs function.name",
                            param=f"{param}.tool_calls[{i}]")
        arguments = fn.get("arguments", "{}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        calls.append(ToolCall(str(call.get("id") or f"call_{i}"), fn["name"], arguments))
    return tuple(calls) or None


def _tools(raw: Any) -> tuple[dict[str, Any], ...] | None:
    if raw is None or raw == []:
        return None
    if not isinstance(raw, list):
        raise WireError(400, "'tools' must be an array", param="tools")
    for i, tool in enumerate(raw):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if (not isinstance(tool, dict) or tool.get("type", "function") != "function"
                or not isinstance(fn, dict) or not isinstance(fn.get("name"), str)):
            raise WireError(400, f"tools[{i}] must be {{type: function, function: {{name, "
                            "parameters}}}}", param=f"tools[{i}]")
    return tuple(raw)


def _tool_choice(raw: Any, tools: tuple[dict[str, Any], ...] | None) -> str | dict[str, Any]:
    if raw is None:
        return "auto" if tools else "none"
    if raw in ("auto", "none", "required"):
        if raw == "required" and not tools:
            raise WireError(400, "tool_choice 'required' needs 'tools'", param="tool_choice")
        return str(raw)
    name = raw.get("function", {}).get("name") if isinstance(raw, dict) else None
    known = {t["function"]["name"] for t in tools or ()}
    if name not in known:
        raise WireError(400, f"tool_choice names no tool of this request: {raw!r}",
                        param="tool_choice")
    return raw


def _positive_int(data: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise WireError(400, f"'{key}' must be a positive integer", param=key)
        return value
    return None


def _number(data: dict[str, Any], key: str, low: float, high: float) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise WireError(400, f"'{key}' must be a number from {low:g} to {high:g}", param=key)
    return float(value)


def _int_or_none(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError(400, f"'{key}' must be an integer", param=key)
    return value


def _bool(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise WireError(400, f"'{key}' must be true or false", param=key)
    return value


def _stop(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (raw,) if raw else ()
    if isinstance(raw, list) and all(isinstance(s, str) for s in raw) and len(raw) <= 4:
        return tuple(s for s in raw if s)
    raise WireError(400, "'stop' must be a string or up to 4 strings", param="stop")


# -- responses ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What one request answers: the text after stop strings, its calls, why it ended."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str  # stop | length | tool_calls


def answer_of(gen: Generation, request: ChatRequest) -> Answer:
    """The generation as the client reads it: native calls when the request had tools and
    the model wrote one; the text cut at the first stop string (decoding itself does not end
    there: the tokens past it were spent and are recorded)."""
    calls = gen.tool_calls or () if request.tools and request.tool_choice != "none" else ()
    if calls:
        return Answer(None, tuple(calls), "tool_calls")
    text, reason = gen.text, gen.finish_reason
    cuts = [text.find(s) for s in request.stop if s in text]
    if cuts:
        text, reason = text[:min(cuts)], "stop"
    return Answer(text, (), reason)


def new_completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def usage_of(gen: Generation) -> dict[str, Any]:
    """OpenAI's usage, counted as llama-server counts it: every token sampled, the end of
    generation included (the engine's decoded_tokens)."""
    return {"prompt_tokens": gen.context_tokens, "completion_tokens": gen.decoded_tokens,
            "total_tokens": gen.context_tokens + gen.decoded_tokens,
            "prompt_tokens_details": {"cached_tokens": gen.reused_tokens}}


def timings_of(gen: Generation) -> dict[str, Any]:
    """llama-server's per-request `timings` names, from the engine's own clock."""
    decoded = max(1, gen.decoded_tokens)
    return {"cache_n": gen.reused_tokens, "prompt_n": gen.prefill_tokens,
            "prompt_ms": gen.prefill_ms, "predicted_n": gen.decoded_tokens,
            "predicted_ms": gen.decode_ms, "predicted_per_token_ms": gen.decode_ms / decoded}


def _message_json(answer: Answer) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.content}
    if answer.tool_calls:
        message["tool_calls"] = [c.wire_form() for c in answer.tool_calls]
    return message


def completion_body(gen: Generation, answer: Answer, completion_id: str,
                    model: str) -> dict[str, Any]:
    return {"id": completion_id, "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": _message_json(answer),
                         "finish_reason": answer.finish_reason, "logprobs": None}],
            "usage": usage_of(gen), "timings": timings_of(gen)}


def chunk(completion_id: str, model: str, delta: dict[str, Any],
          finish_reason: str | None = None) -> dict[str, Any]:
    """One `chat.completion.chunk` of a streamed answer."""
    return {"id": completion_id, "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason,
                         "logprobs": None}]}


def final_chunks(gen: Generation, answer: Answer, completion_id: str, model: str,
                 request: ChatRequest) -> list[dict[str, Any]]:
    """The chunks after the streamed text: the tool calls (whose text was held back), the
    finish reason, and the usage chunk when the client asked for it."""
    out = []
    if answer.tool_calls:
        calls = [{"index": i, **c.wire_form()} for i, c in enumerate(answer.tool_calls)]
        out.append(chunk(completion_id, model, {"tool_calls": calls}))
    out.append(chunk(completion_id, model, {}, answer.finish_reason))
    if request.include_usage:
        last = chunk(completion_id, model, {})
        last["choices"] = []
        last["usage"], last["timings"] = usage_of(gen), timings_of(gen)
        out.append(last)
    return out
