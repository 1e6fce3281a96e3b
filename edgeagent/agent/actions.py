"""The tool-call format: a JSON schema, its GBNF grammar, and parsing of model output.

The model answers every turn with one JSON object `{"name": TOOL, "arguments": {...}}`, the
shape Qwen's native tool calls use. A grammar generated from the schema makes even a 0.5B model
always emit a parseable action; without the grammar, parsing is lenient (fences, tags, prose
around the object) and anything unparseable is a format error, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..engine import Grammar
from ..json_scan import first_json_value
from ..sandbox import ToolSpec


@dataclass(frozen=True)
class Action:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class FormatError:
    message: str


def action_fields(
    parsed: Action | FormatError,
) -> tuple[str | None, dict[str, Any] | None, str | None]:
    """(action name, arguments, format error) as a step record holds them."""
    if isinstance(parsed, Action):
        return parsed.name, parsed.arguments, None
    return None, None, parsed.message


def action_schema(specs: Sequence[ToolSpec]) -> dict[str, Any]:
    variants = []
    for spec in specs:
        params = dict(spec.parameters)
        params.setdefault("type", "object")
        params["additionalProperties"] = False
        variants.append(
            {
                "type": "object",
                "properties": {"name": {"const": spec.name}, "arguments": params},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    return {"oneOf": variants}


@lru_cache(maxsize=8)
def _gbnf_for(schema_json: str, prop_order: tuple[str, ...]) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return json_schema_to_gbnf(schema_json, prop_order=list(prop_order))


def action_grammar(specs: Sequence[ToolSpec]) -> str:
    """GBNF for one tool call; llama.cpp's own JSON-schema converter writes it.

    Keys are emitted in the order the specs declare them (the converter sorts the rest
    alphabetically), so the model writes `path` before `old` and `new`, as a person would.
    """
    order = ["name", "arguments"]
    for spec in specs:
        order += [k for k in spec.parameters.get("properties", {}) if k not in order]
    return _gbnf_for(json.dumps(action_schema(specs), sort_keys=True), tuple(order))


def action_constraint(specs: Sequence[ToolSpec]) -> Grammar:
    """The tool-call grammar with the JSON schema it was written from: llama.cpp takes the
    GBNF, an OpenAI-compatible server that only takes a schema gets the schema."""
    return Grammar(action_grammar(specs), action_schema(specs))


def parse_action(text: str, specs: Sequence[ToolSpec]) -> Action | FormatError:
    names = {spec.name for spec in specs}
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # a model can emit "[[[[..." for ever
        value = first_json_value(text)
        if value is None:
            return FormatError(
                'reply with one JSON object: {"name": TOOL, "arguments": {...}}; '
                "no JSON object was found"
            )
    if not isinstance(value, dict):
        return FormatError("the tool call must be a JSON object with keys name and arguments")
    name = value.get("name")
    if not isinstance(name, str) or name not in names:  # a list or object is unhashable
        return FormatError(f"unknown tool {name!r}; tools: {', '.join(sorted(names))}")
    arguments = value.get("arguments", {})
    if not isinstance(arguments, dict):
        return FormatError("arguments must be a JSON object")
    return Action(name, arguments)
