"""A GGUF's tokenizer and chat template without its weights (llama.cpp `vocab_only`): prompt
lengths counted exactly as the in-process engine renders and tokenises them, in seconds and
with no memory for weights or a KV cache. Also the model's training context (`n_ctx_train`)
and its native tool-call family. One class for every vocab-only user: `replay --isl` and
`--n-ctx auto`, the endpoint engine's token counts (`--tokenizer`), and the context
estimates of `edgeagent tasks`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ModelError
from . import llama_log
from .base import Message
from .chat_template import CHATML_TEMPLATE, ChatTemplate
from .llamacpp_ops import truncate_head_tail
from .threads import apply_thread_policy
from .tool_format import detect_family, single_token_markers


class Vocabulary:
    def __init__(self, path: Path) -> None:
        apply_thread_policy()  # before llama_cpp (and libgomp) loads, as the engine does
        import llama_cpp

        llama_log.install(llama_cpp)  # its warnings are not the user's business here
        self.path = Path(path)
        try:
            self.llm: Any = llama_cpp.Llama(model_path=str(path), vocab_only=True, n_ctx=512,
                                            verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"cannot read the tokenizer of {path}: {exc} (is it a complete "
                             "GGUF file?)") from exc
        llama_log.take_warnings()
        llama_log.take_info()  # a tokenizer's load lines are nobody's settings
        meta = self.llm.metadata
        self._bos_text = self._text(self.llm.token_bos())
        self._add_bos = self.llm._model.add_bos_token()
        template = meta.get("tokenizer.chat_template")
        self.template = ChatTemplate(template or CHATML_TEMPLATE, bos_token=self._bos_text,
                                     eos_token=self._text(self.llm.token_eos()))
        # the native tool-call family of the template, as the engine detects it
        self.tool_family = detect_family(template)
        self.tool_markers = single_token_markers(
            self.tool_family,
            lambda t: self.llm.tokenize(t.encode(), add_bos=False, special=True),
            self._text,
        )
        arch = meta.get("general.architecture", "")
        train = meta.get(f"{arch}.context_length")
        self.n_ctx_train: int | None = int(train) if train and str(train).isdigit() else None

    def _text(self, token: int) -> str:
        if token < 0:
            return ""
        return self.llm.detokenize([token], special=True).decode(errors="replace")

    def _tokenize(self, text: str, first: bool) -> list[int]:
        # the same rule as LlamaCppEngine: a template that writes BOS itself gets no second one
        has_bos = bool(self._bos_text) and text.startswith(self._bos_text)
        return self.llm.tokenize(text.encode(), add_bos=first and self._add_bos and not has_bos,
                                 special=True)

    def prompt_tokens(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None
    ) -> list[int]:
        """The prompt ids LlamaCppEngine.prompt_tokens gives for `messages` (and `tools`)."""
        return self.template.render_tokens(messages, self._tokenize, tools)

    def ids(self, text: str) -> list[int]:
        """Plain text's ids (no BOS, special tokens not parsed), as output is counted."""
        return self.llm.tokenize(text.encode(), add_bos=False, special=False)

    def detok(self, ids: list[int]) -> str:
        return self.llm.detokenize(ids).decode(errors="replace")

    def truncate(self, text: str, max_tokens: int) -> str:
        """The same head-and-tail cut as LlamaCppEngine.truncate_to_tokens."""
        return truncate_head_tail(self.llm, text, max_tokens)

    def close(self) -> None:
        try:
            self.llm.close()
        except Exception:  # noqa: BLE001 - closing a vocab-only model cannot matter
            pass
