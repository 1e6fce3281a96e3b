"""Render chat messages with the model's own template (GGUF `tokenizer.chat_template`).

Rendering happens with placeholders in place of assistant turns that carry their generated
token ids; the text between placeholders is tokenised and the stored ids are spliced back in.
That keeps every prompt a strict extension of the previous one, so the KV cache is reused
(a re-tokenised copy of generated text often differs from the ids the model produced).

Messages reach the template as MLPerf's Edge Agentic harness builds them for
`apply_chat_template(messages, tools=tools, add_generation_prompt=True)`: assistant
`tool_calls` with `function.arguments` parsed to a dict, `reasoning_content` kept, one
`{"role": "tool", "tool_call_id", "content"}` message per tool result; the environment is
transformers' (sandboxed, trim_blocks, lstrip_blocks, loopcontrols, its `tojson`), so a
prompt is token for token the one MLPerf counts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .base import Message

# Used when a GGUF has no template: ChatML, which Qwen and SmolLM2 use natively.
CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_PLACEHOLDER = "\x00EDGEAGENT_TURN_{}\x00"


class _IgnoreGenerationTags(jinja2.ext.Extension):
    """Pass-through for Hugging Face's `{% generation %}` tag found in some templates."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> Any:
        parser.stream.skip(1)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


def _raise(message: str) -> None:
    raise jinja2.TemplateError(message)


def _tojson(
    x: Any, ensure_ascii: bool = False, indent: int | None = None,
    separators: tuple[str, str] | None = None, sort_keys: bool = False,
) -> str:
    # transformers' own filter: its defaults, and the arguments templates pass (indent=4)
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def template_message(m: Message) -> dict[str, Any]:
    """A message as the template reads it (MLPerf's dataset builder's shape)."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls is not None:  # an empty list too: some templates test the key alone
        out["tool_calls"] = [c.template_form() for c in m.tool_calls]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    if m.reasoning_content is not None:
        out["reasoning_content"] = m.reasoning_content
    return out


class ChatTemplate:
    def __init__(self, source: str, *, bos_token: str, eos_token: str) -> None:
        env = ImmutableSandboxedEnvironment(
            loader=jinja2.BaseLoader(),
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=[_IgnoreGenerationTags, jinja2.ext.loopcontrols],
        )
        env.filters["tojson"] = _tojson
        self.source = source
        self._template = env.from_string(source)
        self._bos = bos_token
        self._eos = eos_token

    def render_text(
        self,
        messages: Sequence[Message],
        add_generation_prompt: bool = True,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> str:
        return self._template.render(
            messages=[template_message(m) for m in messages],
            # None when absent, as transformers passes it (templates test `tools is none`)
            tools=[dict(t) for t in tools] if tools else None,
            documents=None,
            add_generation_prompt=add_generation_prompt,
            bos_token=self._bos,
            eos_token=self._eos,
            raise_exception=_raise,
            strftime_now=lambda f: datetime.now().strftime(f),
        )

    def turn_text(self, m: Message, tools: Sequence[Mapping[str, Any]] | None = None
                  ) -> str | None:
        """An assistant turn as the template writes it between the generation prompt and
        its end-of-turn text (its native tool calls inside), or None where the template does
        not write a turn that way. Sent as plain content, it renders exactly as the turn."""
        user = Message("user", "\x00EDGEAGENT_USER\x00")
        marker = "\x00EDGEAGENT_CONTENT\x00"
        try:
            prompt = self.render_text([user], tools=tools)
            full = self.render_text([user, m], add_generation_prompt=False, tools=tools)
            plain = self.render_text([user, Message("assistant", marker)],
                                     add_generation_prompt=False, tools=tools)
        except jinja2.TemplateError:
            return None
        head, sep, end = plain.partition(marker)
        if head != prompt or not sep or not full.startswith(prompt) or not full.endswith(end):
            return None
        return full[len(prompt): len(full) - len(end)]

    def render_tokens(
        self,
        messages: Sequence[Message],
        tokenize: Callable[[str, bool], list[int]],
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[int]:
        """Prompt ids; `tokenize(text, first)` tokenises one text segment.

        An assistant turn with generated ids is rendered as plain content (its tool calls
        and reasoning are already in those ids, in the model's own syntax), so the template
        writes its frame around the placeholder and the ids go in unchanged."""
        spliced: list[tuple[int, ...]] = []
        placeheld: list[Message] = []
        for m in messages:
            if m.role == "assistant" and m.tokens is not None:
                placeheld.append(Message(m.role, _PLACEHOLDER.format(len(spliced))))
                spliced.append(m.tokens)
            else:
                placeheld.append(m)
        text = self.render_text(placeheld, tools=tools)
        ids: list[int] = []
        rest = text
        for i, turn in enumerate(spliced):
            marker = _PLACEHOLDER.format(i)
            head, sep, rest = rest.partition(marker)
            if not sep:
                # the template rewrote the assistant content: fall back to plain text
                return tokenize(self.render_text(messages, tools=tools), True)
            ids += tokenize(head, not ids) if head else []
            ids += turn
        if rest:
            ids += tokenize(rest, not ids)
        return ids
