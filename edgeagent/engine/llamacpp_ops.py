"""Operations on a llama_cpp.Llama shared by the engine, speculative decoding and the
vocab-only tokenizer that estimates task contexts: one copy, so all of them cut and restore
the cache identically."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def evaluate_after_prefix(llm: Any, prompt: Sequence[int], reused: int) -> int:
    """Keep the first `reused` tokens of the KV cache, evaluate the rest of `prompt`, and
    return how many were really reused.

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
    llm.eval(prompt[reused:])
    return reused


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
