"""Native tool calls per template family: detection on real templates, the parser against
what each real template renders for a call, the grammar-constrained output of the tiny model
read back in every family, and the KV-reuse guarantee across native tool-call turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from paths import FIXTURES

from edgeagent.agent.native import native_constraint, openai_tools
from edgeagent.engine.base import Message, ToolCall
from edgeagent.engine.chat_template import CHATML_TEMPLATE, ChatTemplate
from edgeagent.engine.llamacpp import LlamaCppEngine
from edgeagent.engine.llamacpp_settings import EngineSettings
from edgeagent.engine.tool_format import (
    FAMILIES,
    detect_family,
    parse_tool_calls,
    tool_call_grammar,
)
from edgeagent.sandbox.tools import TOOL_SPECS

TEMPLATES = FIXTURES / "templates"
REAL = {
    "hermes": ("qwen2.5-coder-instruct.jinja", "<|endoftext|>", "<|im_end|>"),
    "llama3": ("llama-3.2-3b-instruct.jinja", "<|begin_of_text|>", "<|eot_id|>"),
    "mistral": ("mistral-nemo-instruct-2407.jinja", "<s>", "</s>"),
}
# read_file (a required and two optional arguments) and submit (none)
SPECS = [s for s in TOOL_SPECS if s.name in ("read_file", "submit")]
TOOLS = openai_tools(SPECS)
# arguments a random-weight model cannot run on for ever in (strings can)
BOUNDED = [
    {"type": "function", "function": {"name": "pick", "description": "choose", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"},
                                         "mode": {"type": "string", "enum": ["fast", "slow"]}},
        "required": ["n"]}}},
    {"type": "function", "function": {"name": "submit", "description": "done",
                                      "parameters": {"type": "object", "properties": {}}}},
]


def _template(family: str) -> ChatTemplate:
    name, bos, eos = REAL[family]
    return ChatTemplate((TEMPLATES / name).read_text(), bos_token=bos, eos_token=eos)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_family_is_detected_from_the_real_template(family: str) -> None:
    assert detect_family(_template(family).source) == family


def test_a_template_without_tools_has_no_family() -> None:
    assert detect_family(CHATML_TEMPLATE) is None
    assert detect_family(None) is None


@pytest.mark.parametrize("family", FAMILIES)
def test_the_parser_reads_back_the_call_the_real_template_renders(family: str) -> None:
    """What the template writes for an assistant call turn, after the generation prompt,
    is what the model is trained to generate: the parser must read the same call."""
    template = _template(family)
    call = ToolCall("abc123XYZ", "read_file", json.dumps({"path": "calc.py", "end_line": 9}))
    user = Message("user", "Fix calc.py")
    prompt = template.render_text([user], tools=TOOLS)
    full = template.render_text(
        [user, Message("assistant", None, tool_calls=(call,)),
         Message("tool", "1 def add(a, b):", tool_call_id=call.id)],
        add_generation_prompt=False, tools=TOOLS)
    # Mistral renders no generation prompt; the turn follows the prompt directly
    assert full.startswith(prompt)
    generated = full[len(prompt):]
    parsed = parse_tool_calls(family, generated)
    assert parsed.error is None
    (got,) = parsed.calls
    assert (got.name, got.args) == ("read_file", {"path": "calc.py", "end_line": 9})
    if family == "mistral":
        assert got.id == call.id  # the id is part of Mistral's syntax


def test_text_without_a_call_is_an_error_never_an_exception() -> None:
    for family in FAMILIES:
        for text in ("", "I will read the file.", "<tool_call>\n{\"name\": ", "[TOOL_CALLS][1]"):
            parsed = parse_tool_calls(family, text)
            assert parsed.calls == () and parsed.error


def test_several_hermes_calls_and_a_closing_tag_inside_a_string() -> None:
    text = ('Reading both.\n<tool_call>\n{"name": "read_file", "arguments": {"path": '
            '"</tool_call>.py"}}\n</tool_call>\n<tool_call>\n{"name": "submit", '
            '"arguments": {}}\n</tool_call>')
    parsed = parse_tool_calls("hermes", text, first_id=7)
    assert [(c.name, c.args) for c in parsed.calls] == [
        ("read_file", {"path": "</tool_call>.py"}), ("submit", {})]
    assert [c.id for c in parsed.calls] == ["call00007", "call00008"]
    assert parsed.content == "Reading both."


def test_a_call_cut_by_the_token_budget_leaves_the_complete_ones() -> None:
    text = ('<tool_call>\n{"name": "submit", "arguments": {}}\n</tool_call>\n'
            '<tool_call>\n{"name": "read_file", "argum')
    parsed = parse_tool_calls("hermes", text)
    assert [c.name for c in parsed.calls] == ["submit"] and parsed.error is None


@pytest.fixture(scope="module")
def tools_engine(tiny_tools_model_path: Path):
    engine = LlamaCppEngine(tiny_tools_model_path, EngineSettings(n_ctx=2048, threads=1))
    yield engine
    engine.close()


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_grammar_constrained_output_of_the_tiny_model_parses(
    tools_engine: LlamaCppEngine, family: str
) -> None:
    """The family's grammar on a random-weight model: whatever it samples is a call to one
    of the tools with arguments its schema allows."""
    engine = tools_engine
    markers = engine.tool_markers if family == "hermes" else frozenset()
    grammar = tool_call_grammar(family, BOUNDED, single_tokens=markers)
    gen = engine.generate([Message("user", "go")], max_tokens=200, grammar=grammar)
    assert gen.finish_reason == "stop"  # the grammar ran to its end
    parsed = parse_tool_calls(family, engine.llm.detokenize(list(gen.tokens), special=True)
                              .decode(errors="replace"))
    assert parsed.error is None, gen.text
    (call,) = parsed.calls
    params = next(t["function"]["parameters"] for t in BOUNDED
                  if t["function"]["name"] == call.name)
    assert set(call.args) <= set(params["properties"])
    assert set(params.get("required", [])) <= set(call.args)


@pytest.mark.slow
def test_markers_are_matched_as_the_single_tokens_of_the_vocabulary(
    tools_engine: LlamaCppEngine,
) -> None:
    engine = tools_engine
    assert engine.tool_family == "hermes"
    (open_id,) = engine.llm.tokenize(b"<tool_call>", add_bos=False, special=True)
    (close_id,) = engine.llm.tokenize(b"</tool_call>", add_bos=False, special=True)
    assert engine.tool_markers == {"<tool_call>": open_id, "</tool_call>": close_id}
    gen = engine.generate([Message("user", "go")], max_tokens=200,
                          grammar=native_constraint(engine, BOUNDED), tools=BOUNDED)
    assert gen.tokens[0] == open_id and gen.tokens[-1] == close_id
    assert gen.tool_calls is not None and len(gen.tool_calls) == 1


@pytest.mark.slow
def test_native_tool_call_turns_keep_every_prompt_a_strict_extension(
    tools_engine: LlamaCppEngine,
) -> None:
    """Assistant turns carry tool_calls and their generated ids; observations are `tool`
    messages: each prompt extends the previous prompt and its output, so the whole of it
    is reused from the KV cache."""
    engine = tools_engine
    grammar = native_constraint(engine, BOUNDED)
    messages = [Message("system", "You fix issues."), Message("user", "Fix calc.py")]
    previous: list[int] | None = None
    for step in range(3):
        gen = engine.generate(messages, max_tokens=120, grammar=grammar, tools=BOUNDED)
        prompt = engine.prompt_tokens(messages, BOUNDED)
        assert gen.context_tokens == len(prompt)
        if previous is not None:
            assert prompt[: len(previous)] == previous
            assert gen.reused_tokens == len(previous)
            assert gen.prefill_tokens == len(prompt) - len(previous)
        previous = prompt + list(gen.tokens)
        assert gen.tool_calls, gen.tool_call_error
        call = gen.tool_calls[0]
        messages += [Message("assistant", gen.text, gen.tokens, tool_calls=(call,)),
                     Message("tool", f"output {step}", tool_call_id=call.id)]
    ids = [m.tool_call_id for m in messages if m.role == "tool"]
    assert len(set(ids)) == 3  # every call has its own id


@pytest.mark.slow
def test_in_process_tool_choice_auto_is_the_unconstrained_native_turn(
    tools_engine: LlamaCppEngine,
) -> None:
    """MLPerf's accuracy phase asks tool_choice "auto": in process that is the native turn
    without a grammar (the model may call or not), token for token; a forced choice needs
    the family's grammar, so it is refused rather than silently ignored."""
    engine = tools_engine
    messages = [Message("user", "go")]
    free = engine.generate(messages, max_tokens=24, tools=BOUNDED)
    auto = engine.generate(messages, max_tokens=24, tools=BOUNDED, tool_choice="auto")
    assert auto.tokens == free.tokens and auto.context_tokens == free.context_tokens
    # the same calls read back (their ids count the engine's calls, so they are left out)
    assert [(c.name, c.arguments) for c in auto.tool_calls or ()] == [
        (c.name, c.arguments) for c in free.tool_calls or ()]
    for choice in ("required", "none"):
        with pytest.raises(ValueError, match="takes only 'auto'"):
            engine.generate(messages, max_tokens=4, tools=BOUNDED, tool_choice=choice)


@pytest.mark.slow
def test_a_single_token_marker_not_spelled_like_a_token_is_named_by_id(
        tools_engine: LlamaCppEngine) -> None:
    """Mistral's `[TOOL_CALLS]` written bare in GBNF would be a character class (one of
    T, O, L, ...): where the vocabulary has it as one token the grammar names its id, and
    llama.cpp parses that grammar."""
    named = tool_call_grammar("mistral", BOUNDED, single_tokens={"[TOOL_CALLS]": 5}).gbnf
    assert named.startswith('root ::= <[5]> "["')
    quoted = tool_call_grammar("mistral", BOUNDED).gbnf
    assert quoted.startswith('root ::= "[TOOL_CALLS]" "["')
    tools_engine.greedy_chooser(named).close()  # llama.cpp's parser takes it
