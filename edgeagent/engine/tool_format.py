"""Native tool calls per chat-template family: which family a template is, the GBNF grammar
of its call syntax (each tool's arguments JSON schema inside), and the parser that reads the
calls back out of the model's output.

The families and their syntax follow llama.cpp's own implementation for `llama-server
--jinja` (common/chat.cpp), detected from the template text as it does:

- `hermes`: Hermes 2/3 and Qwen 2.5 (Coder too): `<tool_call>\\n{"name": ..., "arguments":
  {...}}\\n</tool_call>`. In Qwen2.5's vocabulary `<tool_call>` and `</tool_call>` are single
  user-defined tokens whose piece is their text, so the grammar's literal matches the one
  token (llama.cpp's grammar sampler matches token pieces).
- `llama3`: Llama 3.1+ JSON calls: `{"name": ..., "parameters": {...}}`, one per turn.
- `mistral`: Mistral Nemo: `[TOOL_CALLS][{"name": ..., "arguments": {...}, "id": "..."}]`,
  ids of 9 alphanumerics (the template refuses any other).

Any other template has no native tool support here: the agent falls back to its own text
protocol, labelled so. The grammar is strict from the first token (the agent answers every
turn with a call), where llama-server's is lazy (it waits for the trigger word).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..json_scan import LENIENT, first_json_value
from .base import Grammar, ToolCall

FAMILIES = ("hermes", "llama3", "mistral")
# the literal markers of each family's call syntax; where the vocabulary holds one as a single
# token the grammar names that token (`<tool_call>`, or `<[id]>`, in GBNF), so the model
# writes the token it was trained on: as a quoted string the grammar also lets `<`, `tool`,
# `_call`, `>` through, and Qwen2.5-Coder-0.5B's argmax among them was `<` (measured)
MARKERS = {"hermes": ("<tool_call>", "</tool_call>"), "llama3": (), "mistral": ("[TOOL_CALLS]",)}
# a call id every family's template accepts: Mistral's needs exactly 9 alphanumerics
_ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def detect_family(template: str | None) -> str | None:
    """The template's native tool-call family, or None (no native tool support).

    The same tests, in the same order, as llama.cpp's common_chat_templates_apply_jinja."""
    if not template:
        return None
    if "<tool_call>" in template:
        return "hermes"
    if "<|start_header_id|>ipython<|end_header_id|>" in template:
        return "llama3"
    if "[TOOL_CALLS]" in template:
        return "mistral"
    return None


def call_id(n: int) -> str:
    """The n-th call's id: 9 alphanumerics (`call` and a base-36 counter)."""
    digits = ""
    while True:
        n, r = divmod(n, 36)
        digits = _ID_ALPHABET[r] + digits
        if n == 0:
            break
    return "call" + digits.rjust(5, "0")[-5:]


def _function(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    return tool.get("function", tool)


def _parameters(tool: Mapping[str, Any]) -> dict[str, Any]:
    params = dict(_function(tool).get("parameters") or {})
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    return params


def call_schema(family: str, tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The JSON schema of one call object in the family's syntax."""
    args_key = "parameters" if family == "llama3" else "arguments"
    variants = []
    for tool in tools:
        params = _parameters(tool)
        params.setdefault("additionalProperties", False)
        props: dict[str, Any] = {"name": {"const": _function(tool)["name"]}, args_key: params}
        required = ["name", args_key]
        if family == "mistral":
            props["id"] = {"type": "string", "pattern": "^[a-zA-Z0-9]{9}$"}
            required.append("id")
        variants.append({"type": "object", "properties": props, "required": required,
                         "additionalProperties": False})
    return {"oneOf": variants}


@lru_cache(maxsize=16)
def _object_gbnf(schema_json: str, prop_order: tuple[str, ...]) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return json_schema_to_gbnf(schema_json, prop_order=list(prop_order))


def _rename_root(gbnf: str, name: str) -> str:
    # json_schema_to_gbnf names its top rule `root`; no other rule refers to it
    return re.sub(r"^root ::= ", f"{name} ::= ", gbnf, count=1, flags=re.MULTILINE)


def single_token_markers(family: str | None, tokenize: Any, piece: Any) -> dict[str, int]:
    """The family's markers that are one token in a vocabulary, with that token's id:
    `tokenize(text)` gives the ids (special tokens parsed), `piece(id)` a token's text."""
    out = {}
    for marker in MARKERS.get(family or "", ()):
        ids = tokenize(marker)
        if len(ids) == 1 and piece(ids[0]) == marker:
            out[marker] = ids[0]
    return out


def _marker(text: str, single: Mapping[str, int] | frozenset[str]) -> str:
    """A marker in GBNF: its one token where the vocabulary has it, named by its text when
    spelled `<...>` (llama.cpp's parser tokenizes that), else by id (`[TOOL_CALLS]` written
    bare would be a character class); otherwise the quoted text."""
    if text in single:
        if text.startswith("<") and text.endswith(">"):
            return text
        if isinstance(single, Mapping):
            return f"<[{single[text]}]>"
    return json.dumps(text)


def tool_call_grammar(
    family: str, tools: Sequence[Mapping[str, Any]], *, parallel: bool = False,
    single_tokens: Mapping[str, int] | frozenset[str] = frozenset(),
) -> Grammar:
    """The GBNF of one turn of native calls (one call, or one or more with `parallel`), and
    the JSON schema of a call object, for servers that take a schema instead.

    Keys come in the template's order (name, then the arguments; in each tool's arguments
    the order its schema declares), as llama.cpp's converter writes them. Markers named in
    `single_tokens` (single_token_markers) are matched as that one token."""
    if family not in FAMILIES:
        raise ValueError(f"no native tool-call syntax for family {family!r}")
    schema = call_schema(family, tools)
    args_key = "parameters" if family == "llama3" else "arguments"
    order = ["name", args_key, "id"]
    for tool in tools:
        order += [k for k in _parameters(tool)["properties"] if k not in order]
    body = _rename_root(_object_gbnf(json.dumps(schema, sort_keys=True), tuple(order)), "call")
    if family == "hermes":
        one = (f'tool-call ::= {_marker("<tool_call>", single_tokens)} "\\n" call '
               f'"\\n" {_marker("</tool_call>", single_tokens)}')
        root = 'root ::= tool-call ("\\n" tool-call)*' if parallel else "root ::= tool-call"
        head = f"{root}\n{one}"
    elif family == "llama3":
        head = "root ::= call"
    else:
        more = ' ("," space call)*' if parallel else ""
        head = f'root ::= {_marker("[TOOL_CALLS]", single_tokens)} "[" call{more} "]"'
    return Grammar(f"{head}\n{body}", schema)


@dataclass(frozen=True)
class ParsedCalls:
    """What a turn's output holds: its calls, the text around them, and why it held no
    readable call (None when it did)."""

    calls: tuple[ToolCall, ...]
    content: str
    error: str | None = None


def _object(text: str) -> Any:
    """The first JSON value that starts at a `{` or `[` in text, or None."""
    return first_json_value(text, "{[", LENIENT)


def _hermes_blocks(text: str) -> tuple[list[Any], str]:
    """The JSON value after each `<tool_call>` (decoded, not cut at the closing tag: a string
    inside may hold `</tool_call>`), and the text outside the blocks."""
    found: list[Any] = []
    outside: list[str] = []
    pos = 0
    while True:
        start = text.find("<tool_call>", pos)
        if start == -1:
            outside.append(text[pos:])
            break
        outside.append(text[pos:start])
        body = start + len("<tool_call>")
        value = None
        i = body + len(text[body:]) - len(text[body:].lstrip())
        try:
            value, end = LENIENT.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):
            end = len(text)
        found.append(value)
        rest = text[end:]
        close = len(rest) - len(rest.lstrip())
        if rest.lstrip().startswith("</tool_call>"):
            close += len("</tool_call>")
        pos = end + close
    return found, "".join(outside)


def _call(value: Any, n: int, args_keys: tuple[str, ...]) -> ToolCall | str:
    if not isinstance(value, dict):
        return "a tool call must be a JSON object with keys name and arguments"
    name = value.get("name")
    if not isinstance(name, str):
        return "the tool call has no name"
    args = next((value[k] for k in args_keys if k in value), {})
    if isinstance(args, str):  # some models write the arguments as a JSON string
        try:
            args = LENIENT.decode(args)
        except (json.JSONDecodeError, RecursionError):
            return f"the arguments of {name} are not JSON"
    if not isinstance(args, dict):
        return f"the arguments of {name} must be a JSON object"
    cid = value.get("id")
    cid = cid if isinstance(cid, str) and cid else call_id(n)
    return ToolCall(cid, name, json.dumps(args, ensure_ascii=False))


def parse_tool_calls(family: str | None, text: str, first_id: int = 0) -> ParsedCalls:
    """The calls in a turn's output, read in the family's syntax (None: whatever syntax is
    found). Never raises: output without a readable call comes back with the reason.
    Calls without an id get `call_id(first_id + i)`."""
    found: list[Any] = []
    content = text
    if family in (None, "hermes") and "<tool_call>" in text:
        found, content = _hermes_blocks(text)
    elif family in (None, "mistral") and "[TOOL_CALLS]" in text:
        head, _, rest = text.partition("[TOOL_CALLS]")
        value = _object(rest)
        found = value if isinstance(value, list) else [value]
        content = head
    else:
        # llama3, or a marker the detokenizer dropped (a control token): the first object
        value = _object(text.replace("<|python_tag|>", ""))
        if isinstance(value, list):
            found = value
        elif value is not None:
            found = [value]
        content = "" if found else text
    if not found:
        return ParsedCalls((), text.strip(), "no tool call found in the output")
    calls: list[ToolCall] = []
    problem: str | None = None
    for value in found:
        call = _call(value, first_id + len(calls), ("arguments", "parameters"))
        if isinstance(call, str):
            problem = problem or call  # a later call cut by the token budget: the rest stand
        else:
            calls.append(call)
    if not calls:
        return ParsedCalls((), text.strip(), problem)
    return ParsedCalls(tuple(calls), content.strip())
