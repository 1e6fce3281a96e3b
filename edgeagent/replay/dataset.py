"""MLPerf Edge Agentic dataset files: JSONL, one message per line, checked row by row.

Rows of a conversation are contiguous, numbered by `turn` from 1 up by one (a row may repeat
the number before it, for files that number an assistant row and its tool row alike), and alternate
user -> assistant -> tool -> assistant -> ... (a user row may also follow an assistant row
that made no tool call, or a tool row, as MLPerf's state machine allows). An assistant row is
a plain message (`content`, no `tool_calls`) or a tool-call row (at least one call), as in
MLPerf's own JSON schema (scripts/agentic_inference_dataset_schema.json in mlcommons/endpoints).
Every error names the file, the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import ToolCall  # a row's calls: `arguments` the JSON text as the file has it
from ..errors import UserError

ROLES = ("user", "assistant", "tool")


class DatasetError(UserError):
    """A dataset file that does not follow the MLPerf agentic schema."""


@dataclass(frozen=True)
class ToolResult:
    tool_call_id: str
    content: str

    def to_json(self) -> dict[str, Any]:
        return {"tool_call_id": self.tool_call_id, "content": self.content}


@dataclass(frozen=True)
class Row:
    conversation_id: str
    turn: int
    role: str
    content: str | None = None
    system: str | None = None
    tools: tuple[dict[str, Any], ...] | None = None
    reasoning_content: str | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    tool_results: tuple[ToolResult, ...] | None = None
    delay_seconds: float | None = None
    # keys this schema does not know, kept so that a file round-trips unchanged
    extra: tuple[tuple[str, Any], ...] = ()
    line: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"conversation_id": self.conversation_id, "turn": self.turn,
                               "role": self.role}
        if self.content is not None:
            out["content"] = self.content
        if self.system is not None:
            out["system"] = self.system
        if self.tools is not None:
            out["tools"] = list(self.tools)
        if self.reasoning_content is not None:
            out["reasoning_content"] = self.reasoning_content
        if self.tool_calls is not None:
            out["tool_calls"] = [c.wire_form() for c in self.tool_calls]
        if self.tool_results is not None:
            out["tool_results"] = [r.to_json() for r in self.tool_results]
        if self.delay_seconds is not None:
            out["delay_seconds"] = self.delay_seconds
        out.update(dict(self.extra))
        return out


@dataclass(frozen=True)
class Conversation:
    id: str
    rows: tuple[Row, ...]

    @property
    def system(self) -> str | None:
        return self.rows[0].system

    @property
    def tools(self) -> tuple[dict[str, Any], ...]:
        return self.rows[0].tools or ()

    @property
    def assistant_turns(self) -> int:
        return sum(1 for r in self.rows if r.role == "assistant")


_KNOWN = {"conversation_id", "turn", "role", "content", "system", "tools", "reasoning_content",
          "tool_calls", "tool_results", "delay_seconds"}


class _Checker:
    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, message: str) -> DatasetError:
        return DatasetError(f"{self.where}: {message}")

    def opt_str(self, obj: dict[str, Any], key: str, label: str = "") -> str | None:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(f"field '{label or key}' must be a string, got {_kind(value)}")
        return value


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), type(value).__name__)


def _parse_tools(c: _Checker, value: Any) -> tuple[dict[str, Any], ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise c.fail(f"field 'tools' must be a list of OpenAI tool definitions, got {_kind(value)}")
    for i, tool in enumerate(value):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise c.fail(
                f"field 'tools[{i}]' must be {{\"type\": \"function\", \"function\": "
                "{\"name\": ..., \"parameters\": {...}}}"
            )
    return tuple(value)


def _parse_tool_calls(
    c: _Checker, value: Any, content: str | None
) -> tuple[ToolCall, ...] | None:
    """An assistant row's calls; None for a plain message. MLPerf's schema has two kinds of
    assistant row: a plain one with `content` and no `tool_calls`, and a tool-call one with
    at least one call. `[]` (what our older exports wrote) is read as a plain message."""
    if value is None or value == []:
        if content is None:
            raise c.fail("field 'content' is missing (a plain assistant row needs the message "
                         "text; a row that calls tools needs 'tool_calls' with at least one "
                         "call)")
        return None
    if not isinstance(value, list):
        raise c.fail(f"field 'tool_calls' must be a list, got {_kind(value)}")
    calls: list[ToolCall] = []
    for i, call in enumerate(value):
        key = f"tool_calls[{i}]"
        if not isinstance(call, dict):
            raise c.fail(f"field '{key}' must be an object, got {_kind(call)}")
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise c.fail(f"field '{key}.id' must be a non-empty string")
        if call.get("type", "function") != "function":
            raise c.fail(f"field '{key}.type' must be \"function\", got {call.get('type')!r}")
        fn = call.get("function")
        if not isinstance(fn, dict):
            raise c.fail(f"field '{key}.function' must be an object with name and arguments")
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise c.fail(f"field '{key}.function.name' must be a non-empty string")
        arguments = fn.get("arguments")
        if not isinstance(arguments, str):
            raise c.fail(f"field '{key}.function.arguments' must be a JSON string, "
                         f"got {_kind(arguments)}")
        try:
            parsed = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise c.fail(f"field '{key}.function.arguments' is not valid JSON ({exc.msg} at "
                         f"char {exc.pos})") from None
        if not isinstance(parsed, dict):
            raise c.fail(f"field '{key}.function.arguments' must encode a JSON object, "
                         f"got {_kind(parsed)}")
        if any(x.id == call_id for x in calls):
            raise c.fail(f"field '{key}.id' repeats the id {call_id!r} within the turn")
        calls.append(ToolCall(call_id, name, arguments))
    return tuple(calls)


def _parse_tool_results(c: _Checker, value: Any) -> tuple[ToolResult, ...]:
    if not isinstance(value, list) or not value:
        raise c.fail("field 'tool_results' must be a non-empty list of "
                     "{\"tool_call_id\": ..., \"content\": ...}")
    results = []
    for i, item in enumerate(value):
        key = f"tool_results[{i}]"
        if not isinstance(item, dict):
            raise c.fail(f"field '{key}' must be an object, got {_kind(item)}")
        call_id, content = item.get("tool_call_id"), item.get("content")
        if not isinstance(call_id, str) or not call_id:
            raise c.fail(f"field '{key}.tool_call_id' must be a non-empty string")
        if not isinstance(content, str):
            raise c.fail(f"field '{key}.content' must be a string, got {_kind(content)}")
        results.append(ToolResult(call_id, content))
    return tuple(results)


def parse_row(obj: Any, where: str, line: int = 0) -> Row:
    """One row on its own: types and per-role fields (the order is checked by the loader)."""
    c = _Checker(where)
    if not isinstance(obj, dict):
        raise c.fail(f"a row must be a JSON object, got {_kind(obj)}")
    conv = obj.get("conversation_id")
    if not isinstance(conv, str) or not conv:
        raise c.fail("field 'conversation_id' must be a non-empty string")
    turn = obj.get("turn")
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise c.fail(f"field 'turn' must be an integer >= 1, got {turn!r}")
    role = obj.get("role")
    if role not in ROLES:
        raise c.fail(f"field 'role' must be one of {', '.join(ROLES)}, got {role!r}")
    content = c.opt_str(obj, "content")
    extra = tuple((k, v) for k, v in obj.items() if k not in _KNOWN)
    common = {"conversation_id": conv, "turn": turn, "role": role, "content": content,
              "extra": extra, "line": line}
    if role == "user":
        if content is None:
            raise c.fail("field 'content' is missing (a user row needs the message text)")
        return Row(**common, system=c.opt_str(obj, "system"),
                   tools=_parse_tools(c, obj.get("tools")))
    if role == "assistant":
        return Row(**common, reasoning_content=c.opt_str(obj, "reasoning_content"),
                   tool_calls=_parse_tool_calls(c, obj.get("tool_calls"), content))
    delay = obj.get("delay_seconds")
    if delay is not None and (isinstance(delay, bool) or not isinstance(delay, (int, float))
                              or delay < 0):
        raise c.fail(f"field 'delay_seconds' must be a number >= 0, got {delay!r}")
    return Row(**common, tool_results=_parse_tool_results(c, obj.get("tool_results")),
               delay_seconds=delay)


def _check_order(rows: Sequence[Row], where: Any) -> None:
    """Turn numbering and the role alternation of one conversation."""
    previous: Row | None = None
    for row in rows:
        at = where(row)
        # we number every row; a file that gives a tool row its assistant's number is read
        # too: a turn may repeat the previous number but never go back or skip one
        allowed = (1,) if previous is None else (previous.turn, previous.turn + 1)
        if row.turn not in allowed:
            raise DatasetError(
                f"{at}: field 'turn' is {row.turn}, expected {' or '.join(map(str, allowed))} "
                f"(turns of conversation {row.conversation_id!r} start at 1 and count up by "
                "one, in file order)"
            )
        if previous is None:
            if row.role != "user":
                raise DatasetError(f"{at}: field 'role' is {row.role!r}; a conversation starts "
                                   "with a user row (with system and tools)")
        elif row.role == "assistant" and previous.role == "assistant":
            raise DatasetError(f"{at}: field 'role': two assistant rows in a row (the tool "
                               "results or user message between them are missing)")
        elif row.role == "tool":
            calls = previous.tool_calls if previous.role == "assistant" else None
            if not calls:
                raise DatasetError(f"{at}: field 'role': a tool row must follow an assistant "
                                   "row that made tool calls")
            ids = {call.id for call in calls}
            for i, result in enumerate(row.tool_results or ()):
                if result.tool_call_id not in ids:
                    raise DatasetError(
                        f"{at}: field 'tool_results[{i}].tool_call_id' is "
                        f"{result.tool_call_id!r}, which matches no tool call of turn "
                        f"{previous.turn} (ids: {', '.join(sorted(ids))})"
                    )
            answered = {r.tool_call_id for r in row.tool_results or ()}
            missing = sorted(ids - answered)
            if missing:
                raise DatasetError(f"{at}: field 'tool_results' has no result for tool call(s) "
                                   f"{', '.join(missing)} of turn {previous.turn}")
        elif previous.role == "assistant" and previous.tool_calls:
            raise DatasetError(f"{at}: field 'role' is {row.role!r}, expected 'tool' (turn "
                               f"{previous.turn} made tool calls that need results)")
        elif row.role == "user" and previous.role == "user":
            raise DatasetError(f"{at}: field 'role': two user rows in a row (an assistant "
                               "row between them is missing)")
        previous = row


def conversations_from_rows(
    rows: Iterable[Row], source: str = "<rows>"
) -> tuple[Conversation, ...]:
    grouped: dict[str, list[Row]] = {}
    last: str | None = None
    for row in rows:
        if row.conversation_id != last and row.conversation_id in grouped:
            raise DatasetError(
                f"{source}:{row.line}: field 'conversation_id' {row.conversation_id!r} appears "
                "again after another conversation (keep each conversation's rows together)"
            )
        grouped.setdefault(row.conversation_id, []).append(row)
        last = row.conversation_id
    out = []
    for conv_id, conv_rows in grouped.items():
        _check_order(conv_rows, lambda r: f"{source}:{r.line}")
        out.append(Conversation(conv_id, tuple(conv_rows)))
    return tuple(out)


def is_metadata_row(obj: Any) -> bool:
    """A dataset's header row (`"_type": "dataset_metadata"`), no message: MLPerf's loader
    (AgenticInferenceDataset) drops it before checking the conversations, so do we."""
    return isinstance(obj, dict) and obj.get("_type") == "dataset_metadata"


def load_dataset(path: Path) -> tuple[Conversation, ...]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(
            f"{path}: no such dataset file (give an MLPerf agentic .jsonl file)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read the dataset: {exc}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(
                f"{where}: not a JSON object ({exc.msg} at column {exc.colno})"
            ) from None
        if is_metadata_row(obj):
            continue
        rows.append(parse_row(obj, where, n))
    if not rows:
        raise DatasetError(f"{path}: the dataset has no rows (one JSON message per line)")
    return conversations_from_rows(rows, str(path))


def dump_rows(conversations: Iterable[Conversation]) -> str:
    """JSONL text; `load_dataset` of it gives the same conversations back."""
    return "".join(
        json.dumps(row.to_json(), ensure_ascii=False) + "\n"
        for conv in conversations for row in conv.rows
    )


def select_conversations(
    conversations: Sequence[Conversation], spec: str | None
) -> tuple[Conversation, ...]:
    """`spec`: None (all), a count N (the first N), or comma-separated conversation ids."""
    if spec is None or spec == "":
        return tuple(conversations)
    if spec.isdigit():
        n = int(spec)
        if n < 1:
            raise DatasetError("--conversations must be at least 1 (or a list of ids)")
        return tuple(conversations[:n])
    by_id = {c.id: c for c in conversations}
    chosen = []
    for conv_id in (s.strip() for s in spec.split(",") if s.strip()):
        if conv_id not in by_id:
            known = ", ".join(list(by_id)[:10])
            raise DatasetError(f"--conversations: no conversation {conv_id!r} in the dataset "
                               f"(ids: {known}{', ...' if len(by_id) > 10 else ''})")
        chosen.append(by_id[conv_id])
    return tuple(chosen)
