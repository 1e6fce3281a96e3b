"""Operations on a llama_cpp.Llama shared by the engine, speculative decoding and the
vocab-only tokenizer that estimates task contexts: one copy, so all of them cut and restore
the cache identically; and the text of a generation as it streams (TokenText)."""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from typing import Any


def evaluate_after_prefix(llm: Any, prompt: Sequence[int], reused: int,
                          logits: bool = True) -> int:
    """Keep the first `reused` tokens of the KV cache, evaluate the rest of `prompt` (with
    logits at its last token, or at none: eval_tokens), and return how many were really
    reused.

    A backend that cannot remove part of the cache is reset and the whole prompt evaluated,
    as Llama.generate does: then 0 were reused.
    """
    if reused == 0:
        llm.reset()
    elif llm._ctx.kv_cache_seq_rm(-1, reused, -1):
        llm.n_tokens = reused
        llm._requires_eval = True
    else:
        llm.reset()
        reused = 0
    eval_tokens(llm, prompt[reused:], logits)
    return reused


def eval_tokens(llm: Any, tokens: Sequence[int], logits: bool = True) -> None:
    """Evaluate `tokens` after the cache in n_batch chunks, as Llama.eval does, but with
    logits at the last token only (Llama.eval asks for them at the end of every chunk), or
    at none with `logits=False`: llama.cpp then skips the output layer, a quarter of a
    decode step for a 0.5B model, and computes the same KV cache. Without them the next
    generation re-evaluates the last token before sampling (`_requires_eval`)."""
    if llm._logits_all:  # a context that keeps every row: Llama.eval's own bookkeeping
        llm.eval(tokens)
        return
    llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
    batch = llm._batch
    for start in range(0, len(tokens), llm.n_batch):
        chunk = list(tokens[start:start + llm.n_batch])
        n_past = llm.n_tokens
        batch.set_batch(batch=chunk, n_past=n_past, logits_all=False)
        batch.batch.logits[len(chunk) - 1] = logits and start + len(chunk) == len(tokens)
        llm._ctx.decode(batch)
        llm.input_ids[n_past:n_past + len(chunk)] = chunk
        llm.n_tokens = n_past + len(chunk)
    if not logits:
        # llama.cpp books an evaluation into its perf counters when the caller next reads
        # logits (llama_synchronize): without this, a no-logits step would be booked
        # together with the next one, as one 2-token prompt batch timed across the harness's
        # own work between them (t_p_eval, not t_eval)
        import llama_cpp  # loaded already: `llm` is one of its Llamas

        llama_cpp.llama_synchronize(llm._ctx.ctx)
    llm._requires_eval = not logits


def truncate_head_tail(llm: Any, text: str, max_tokens: int) -> str:
    """`text` cut to `max_tokens` of `llm`'s vocabulary: two thirds head, one third tail, and a
    marker between saying how many tokens were dropped. Shared by the engine and the
    vocab-only tokenizer that estimates task contexts, so both cut identically."""
    ids = llm.tokenize(text.encode(), add_bos=False, special=False)
    if len(ids) <= max_tokens:
        return text
    marker = f"\n[... {len(ids)} tokens truncated ...]\n"
    keep = max(0, max_tokens - len(llm.tokenize(marker.encode(), add_bos=False, special=False)))
    head, tail = ids[: keep * 2 // 3], ids[len(ids) - (keep - keep * 2 // 3) :]
    dropped = len(ids) - len(head) - len(tail)
    return (
        llm.detokenize(head).decode(errors="replace")
        + marker.replace(str(len(ids)), str(dropped))
        + llm.detokenize(tail).decode(errors="replace")
    )


class TokenText:
    """A generation's text as it streams, one piece per token, adding up to the text of the
    whole: each token is detokenized after the few before it (a tokenizer may drop the
    leading space of a sequence's first piece) and its bytes go through one UTF-8 decoder,
    so a character split over tokens comes out whole, once its last byte is there. Control
    tokens are not shown, as in the finished text."""

    CONTEXT = 4  # tokens of context before each new one

    def __init__(self, llm: Any, emit: Callable[[str], None]) -> None:
        self._llm = llm
        self._emit = emit
        self._recent: list[int] = []
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def add(self, token: int) -> None:
        before = self._llm.detokenize(self._recent) if self._recent else b""
        both = self._llm.detokenize([*self._recent, token])
        # a tokenizer that tidies spaces across pieces may break the prefix: then the piece
        new = both[len(before):] if both.startswith(before) else self._llm.detokenize([token])
        self._recent = [*self._recent[-(self.CONTEXT - 1):], token]
        self._send(self._utf8.decode(new))

    def finish(self) -> None:
        """What is left of a character cut off by the end of the generation."""
        self._send(self._utf8.decode(b"", final=True))

    def _send(self, text: str) -> None:
        if text:
            self._emit(text)
