"""A scripted engine for tests that drive the real runner (sandbox, store, reports) without a
model: a subclass says what to answer at each call (`answer`), this base does the rest of the
engine surface the loop uses."""

from __future__ import annotations

import time

from edgeagent.engine.base import Generation, Message


class ScriptedEngine:
    """Answers each generate() call with `answer(call_number, messages)`: (text, finish)."""

    n_ctx = 8192
    # the token accounting of every generation (prefill = context - reused)
    context_tokens = 300
    reused_tokens = 290
    decoded_tokens = 5

    def __init__(self) -> None:
        self.calls = 0

    def provenance(self) -> dict:
        return {"engine": "scripted"}

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return text[: max_tokens * 4]

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        raise NotImplementedError

    def generate(self, messages: list[Message], *, max_tokens: int, grammar=None,
                 max_context_tokens=None, on_token=None) -> Generation:
        t0 = time.monotonic_ns()
        text, finish = self.answer(self.calls, messages)
        self.calls += 1
        t1 = time.monotonic_ns()
        return Generation(text, (), finish, self.context_tokens, self.reused_tokens,
                          self.context_tokens - self.reused_tokens, self.decoded_tokens,
                          t0, t0, t1, t1, (t1,))
