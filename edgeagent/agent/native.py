"""Native tool calling for the agent: which tool format a run uses, our tools as OpenAI
function schemas for the chat template, and a generation's native calls read as an Action.

`native`: the template renders the tools and the model writes calls in its own syntax
(engine/tool_format.py); `text`: our JSON protocol in the system prompt (actions.py), the
fallback for a template without native tool support. `auto` is the measured choice: for a
live agent run, text (it resolved more `core` tasks than native with both registry models
and costs fewer prompt tokens per step; docs/results.md, issue 18); for a replay, native
wherever the template has a tool-call family (MLPerf's input lengths are native renderings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import Generation, Grammar, tool_call_grammar
from ..errors import ConfigError
from ..sandbox import TOOL_SPECS, ToolSpec
from .actions import Action, FormatError


@dataclass(frozen=True)
class ToolFormat:
    """The tool format a run uses, and why."""

    requested: str  # auto | native | text
    resolved: str  # native | text
    family: str | None  # the template's tool-call family (engine.tool_format), if any
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"requested": self.requested, "resolved": self.resolved,
                "family": self.family, "reason": self.reason}


def resolve_tool_format(requested: str, engine: Any, *, live: bool) -> ToolFormat:
    """native, text or auto against what the engine's chat template supports; `live`: an
    agent run (auto: text, the measured better one), else a replay (auto: native where
    possible).

    An endpoint without a tokenizer cannot show us its template: native is then the server's
    business (it renders `tools` and returns `tool_calls`), taken only when asked for."""
    family = getattr(engine, "tool_family", None)
    endpoint = getattr(engine, "server_kind", None) is not None
    if requested == "text":
        return ToolFormat(requested, "text", family, "asked for (--tool-format text)")
    if requested == "auto" and live and family is not None:
        return ToolFormat(requested, "text", family,
                          "auto for a live run: text resolved more core tasks than native "
                          "with the registry models (docs/results.md); --tool-format native "
                          "for the template's own syntax")
    if family is not None:
        return ToolFormat(requested, "native", family,
                          f"the chat template speaks the {family} tool-call syntax")
    if requested == "native":
        if endpoint:
            return ToolFormat(requested, "native", None,
                              "asked for; the server renders the tools and parses the calls")
        raise ConfigError(
            "--tool-format native (config key tool_format): the model's chat template has no "
            "native tool-call syntax "
            "this tool knows (Hermes/Qwen <tool_call>, Llama 3.1+, Mistral [TOOL_CALLS]); "
            "use --tool-format text or auto"
        )
    return ToolFormat(requested, "text", None,
                      "fallback: the chat template has no native tool-call support")


def openai_tools(specs: Sequence[ToolSpec] = TOOL_SPECS) -> list[dict[str, Any]]:
    """Our tools as OpenAI function schemas, the `tools` a chat template renders and an
    exported MLPerf conversation declares (by default the tools without search_code)."""
    out = []
    for spec in specs:
        params = dict(spec.parameters)
        params.setdefault("type", "object")
        out.append({"type": "function", "function": {
            "name": spec.name, "description": spec.description, "parameters": params}})
    return out


def native_constraint(engine: Any, tools: Sequence[dict[str, Any]]) -> Grammar | None:
    """The grammar of one native call in the engine's family, its markers as the single
    tokens they are in its vocabulary; None where the family is unknown (a server that
    constrains the call itself)."""
    family = getattr(engine, "tool_family", None)
    if family is None:
        return None
    markers = getattr(engine, "tool_markers", frozenset())
    return tool_call_grammar(family, tools, single_tokens=markers)


def native_action(gen: Generation, specs: Sequence[ToolSpec]) -> Action | FormatError:
    """The step's action from the generation's native calls (the first, when a server
    returned several), checked against our tools; never raises."""
    if not gen.tool_calls:
        return FormatError(
            f"call one tool in the native syntax; {gen.tool_call_error or 'no tool call found'}"
        )
    call = gen.tool_calls[0]
    names = {spec.name for spec in specs}
    if call.name not in names:
        return FormatError(f"unknown tool {call.name!r}; tools: {', '.join(sorted(names))}")
    try:
        arguments = call.args
    except (ValueError, RecursionError):  # a server's arguments may be any text
        return FormatError(f"the arguments of {call.name} are not JSON")
    if not isinstance(arguments, dict):
        return FormatError("arguments must be a JSON object")
    return Action(call.name, arguments)
