"""What MLPerf's BFCL scorer reads out of one answer (our code, its rules: bfcl_v4_scorer.py
`get_scoring_outputs`, evaluation/extractor.py `FunctionCallExtractor`).

The answer is scored as one string: the native tool calls serialized as OpenAI `tool_calls`
JSON when the model made any (llama-server parses them out of the text; the in-process engine
reads them in the template's syntax the same way), else the message's text. Through an
endpoint only the server's structured calls are native: a call our endpoint engine read out
of the text (a server that returned no `tool_calls`) is text to MLPerf's scorer, which then
reads the text with its extractor, as below (scorable_calls). From that string:

- a call was made (the hallucination and relevance rules) only when it is `tool_calls` JSON;
- the calls the AST checker gets are the first of: the `tool_calls` JSON; a JSON array of
  {"name": ..., "arguments": ...} objects; `name(key=value, ...)` calls written in the text
  (text_calls.py); none.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .text_calls import calls_in_text

Call = dict[str, Any]  # {"name": ..., "arguments": ...}


def scorable_calls(native_calls: Sequence[tuple[str, str]], calls_source: str | None
                   ) -> Sequence[tuple[str, str]]:
    """The calls MLPerf's scorer sees as structured: none when the endpoint engine read them
    out of the text (`calls_source` "text"); else all (the server's `tool_calls`, or the
    in-process engine's reading, which stands where llama-server's parser does)."""
    return () if calls_source == "text" else native_calls


def scored_output(text: str, native_calls: Sequence[tuple[str, str]]) -> str:
    """The string MLPerf scores: `native_calls` ((name, arguments JSON text) pairs) as
    OpenAI tool_calls JSON, else `text`."""
    if not native_calls:
        return text
    return json.dumps([{"id": f"call_{i}", "type": "function",
                        "function": {"name": name, "arguments": arguments}}
                       for i, (name, arguments) in enumerate(native_calls)])


def _json_list(text: str) -> list[Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def tool_calls_json(text: str) -> list[Call] | None:
    """The calls of OpenAI tool_calls JSON (arguments parsed where they are JSON text), or
    None when `text` is not that: a non-empty list of objects, each with a `function`
    object."""
    items = _json_list(text)
    if not items or not all(isinstance(i, dict) and isinstance(i.get("function"), dict)
                            for i in items):
        return None
    calls = []
    for item in items:
        arguments = item["function"].get("arguments", "{}")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                pass  # kept as the text it is; the AST step reads it as no arguments
        calls.append({"name": item["function"].get("name", ""), "arguments": arguments})
    return calls


def call_array(text: str) -> list[Call] | None:
    """A non-empty JSON array of objects that all have a `name`, or None."""
    items = _json_list(text)
    if not items or not all(isinstance(i, dict) and "name" in i for i in items):
        return None
    return [{"name": i["name"], "arguments": i.get("arguments", {})} for i in items]


def made_tool_call(output: str) -> bool:
    """Whether the answer holds a structured (native) tool call."""
    return tool_calls_json(output.strip()) is not None


def extract_calls(output: str) -> list[Call]:
    """The calls the AST rule reads, after a JSON round trip as MLPerf's scorer makes one
    (tuples become lists; a value JSON cannot hold is kept as its text)."""
    text = output.strip()
    calls = (tool_calls_json(text) or call_array(text) or calls_in_text(text) or []) if text \
        else []
    return json.loads(json.dumps(calls, default=repr))


def checker_calls(calls: Sequence[Call]) -> list[dict[str, Any]]:
    """Calls as the checker takes them, [{name: arguments}]: an entry without a name is
    left out, arguments that are JSON text are parsed, and any that are not become {}."""
    out = []
    for call in calls:
        if not isinstance(call, dict) or "name" not in call:
            continue
        arguments = call.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                arguments = {}
        out.append({call["name"]: arguments})
    return out
