"""Render chat messages with the model's own template (GGUF `tokenizer.chat_template`).

Rendering happens with placeholders in place of assistant turns that carry their generated
token ids; the text between placeholders is tokenised and the stored ids are spliced back in.
That keeps every prompt a strict extension of the previous one, so the KV cache is reused
(a re-tokenised copy of generated text often differs from the ids the model produced).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
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


class ChatTemplate:
    def __init__(self, source: str, *, bos_token: str, eos_token: str) -> None:
        env = ImmutableSandboxedEnvironment(
            loader=jinja2.BaseLoader(),
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=[_IgnoreGenerationTags, jinja2.ext.loopcontrols],
        )
        env.filters["tojson"] = lambda x, **kw: json.dumps(x, ensure_ascii=False, **kw)
        self.source = source
        self._template = env.from_string(source)
        self._bos = bos_token
        self._eos = eos_token

    def render_text(self, messages: Sequence[Message], add_generation_prompt: bool = True) -> str:
        return self._template.render(
            messages=[{"role": m.role, "content": m.content} for m in messages],
            add_generation_prompt=add_generation_prompt,
            bos_token=self._bos,
            eos_token=self._eos,
            raise_exception=_raise,
            strftime_now=lambda f: datetime.now().strftime(f),
        )

    def render_tokens(
        self,
        messages: Sequence[Message],
        tokenize: Callable[[str, bool], list[int]],
    ) -> list[int]:
        """Prompt ids; `tokenize(text, first)` tokenises one text segment."""
        spliced: list[tuple[int, ...]] = []
        placeheld: list[Message] = []
        for m in messages:
            if m.role == "assistant" and m.tokens is not None:
                placeheld.append(Message(m.role, _PLACEHOLDER.format(len(spliced))))
                spliced.append(m.tokens)
            else:
                placeheld.append(m)
        text = self.render_text(placeheld)
        ids: list[int] = []
        rest = text
        for i, turn in enumerate(spliced):
            marker = _PLACEHOLDER.format(i)
            head, sep, rest = rest.partition(marker)
            if not sep:
                # the template rewrote the assistant content: fall back to plain text
                return tokenize(self.render_text(messages), True)
            ids += tokenize(head, not ids) if head else []
            ids += turn
        if rest:
            ids += tokenize(rest, not ids)
        return ids
