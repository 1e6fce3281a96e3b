"""Speculative decoding in our own greedy loop: proposers, verification, rollback, counters.

A proposer guesses the next few tokens; the target model evaluates the pending token and the
guesses in one batch, asking llama.cpp for logits at exactly those positions (not
`logits_all`, which would cost n_ctx x n_vocab floats), and keeps the longest prefix of the
guesses that greedy decoding would have chosen itself, plus the token the target chose at the
first mismatch. Positions past what was kept are removed from the target's KV cache. Under a
grammar, the choice at each position is the same grammar-checked argmax the plain loop makes,
and the grammar state advances only over kept tokens, so the output is the plain greedy
output token for token (up to llama.cpp's batch arithmetic, see `decode_speculative`).

Two proposers:
- prompt lookup: the last n tokens are looked up in the whole context (prompt and output so
  far, most recent occurrence first, n down to 1) and what followed is proposed. Edits and
  test output copy long spans, so the guesses are often right.
- draft model: a smaller GGUF with the same tokenizer drafts greedily; its own KV cache keeps
  the longest prefix it shares with the target's context, so each call evaluates only what is
  new (the same prefix reuse the target gets).

How much of a draft is verified is chosen per pass from the measured cost of a target pass
per batch size and the acceptance rate so far (`Speculator`), so that drafting is skipped
where it does not pay: free text, or a machine where a batch costs as much as its tokens
one by one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import ConfigError, ModelError
from .base import EngineError
from .greedy import GreedyChooser, TokenLog
from .llamacpp_ops import evaluate_after_prefix
from .llamacpp_settings import SpecSettings

# llama.cpp's CPU kernels for a batch of >= 2 tokens give logits up to ~0.3 apart from a
# one-token pass over the same cache (measured on Qwen2.5-Coder-0.5B Q4_K_M). Where the best
# token of a verified position leads the runner-up by less than this, the batch's choice is
# not trusted: that position is decided by a one-token pass, as plain decoding would.
MARGIN_GUARD = 1.0


class SpeculativeTarget(Protocol):
    """What speculative decoding needs of the engine it drafts for (LlamaCppEngine): its
    llama.cpp module and model, the context settings a draft model copies, and the token log
    and greedy choice its own greedy loops use, so both decode alike."""

    llama_cpp: Any  # the llama_cpp module
    llm: Any  # the target's llama_cpp.Llama: its KV cache is verified into and rolled back
    n_ctx: int
    n_threads: int
    n_gpu_layers: int
    seed: int

    def token_log(self, max_tokens: int) -> TokenLog: ...

    def greedy_chooser(self, gbnf: str | None) -> GreedyChooser: ...


# ------------------------------------------------------------------------------ proposers


class Proposer(Protocol):
    name: str
    # what kind of guess the last proposal was (prompt lookup: the n-gram length matched);
    # acceptance is tracked per kind, since a 3-gram match is right far more often than a 1-gram
    last_key: str
    # cheap: proposing costs nothing next to a target pass, so the length is chosen after
    # seeing the draft; otherwise (a draft model) it is chosen before drafting
    cheap: bool

    def begin(self, context: Sequence[int]) -> None:
        """A new generation starts from this context (the prompt)."""

    def propose(self, context: Sequence[int], max_draft: int) -> list[int]:
        """Up to max_draft tokens that may follow context (which only grew since begin)."""
        ...

    def provenance(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class PromptLookup:
    """N-gram lookup over the whole context, with an index updated as the context grows.

    For each n in 1..ngram the index maps an n-gram to the position right after its most
    recent occurrence whose continuation is known. A lookup tries the longest n first.
    """

    name = "prompt-lookup"
    cheap = True

    def __init__(self, ngram: int = 3) -> None:
        self.ngram = ngram
        self._index: list[dict[tuple[int, ...], int]] = []
        self._ctx: list[int] = []
        self.last_key = ""

    def begin(self, context: Sequence[int]) -> None:
        self._index = [{} for _ in range(self.ngram + 1)]
        self._ctx = []
        self._extend(context)

    def _extend(self, tokens: Sequence[int]) -> None:
        ctx = self._ctx
        index = self._index
        for tok in tokens:
            j = len(ctx)  # position of tok: the n-grams ending at j-1 now have a continuation
            for n in range(1, self.ngram + 1):
                if j - n < 0:
                    break
                index[n][tuple(ctx[j - n : j])] = j
            ctx.append(tok)

    def propose(self, context: Sequence[int], max_draft: int) -> list[int]:
        if len(context) > len(self._ctx):
            self._extend(context[len(self._ctx) :])
        ctx = self._ctx
        for n in range(min(self.ngram, len(ctx)), 0, -1):
            start = self._index[n].get(tuple(ctx[len(ctx) - n :]))
            if start is not None:
                self.last_key = f"{n}-gram"
                return ctx[start : start + max_draft]
        self.last_key = ""
        return []

    def provenance(self) -> dict[str, Any]:
        return {"proposer": self.name, "ngram": self.ngram}

    def close(self) -> None:
        pass


class DraftModel:
    """Greedy drafts from a second, smaller GGUF that shares the target's tokenizer."""

    name = "draft"
    cheap = False

    def __init__(self, path: Path, target: SpeculativeTarget) -> None:
        import llama_cpp

        self._lc = llama_cpp
        self.path = Path(path)
        try:
            self.llm = llama_cpp.Llama(
                model_path=str(self.path),
                n_ctx=target.n_ctx,
                n_threads=target.n_threads,
                n_threads_batch=target.n_threads,
                n_gpu_layers=target.n_gpu_layers,
                n_batch=512,
                seed=target.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"cannot load draft model {self.path}: {exc}") from exc
        _check_same_tokenizer(self.llm, target.llm, self.path)
        self._vocab = self.llm._model.vocab
        self._n_vocab = self.llm.n_vocab()
        self._known = 0  # context[:known] is in the draft's cache
        self.last_key = "draft"

    def begin(self, context: Sequence[int]) -> None:
        cache = self.llm._input_ids
        n = min(len(cache), len(context))
        same = np.asarray(cache[:n]) == np.asarray(context[:n], dtype=cache.dtype)
        self._known = int(n if same.all() else np.argmin(same))

    def _sync(self, context: Sequence[int]) -> None:
        """Bring the draft's cache to exactly `context`, keeping the shared prefix."""
        llm = self.llm
        known = self._known
        cache = llm._input_ids
        while known < min(len(cache), len(context)) and cache[known] == context[known]:
            known += 1
        # the live logits must belong to the last context token: re-evaluate at least it
        keep = min(known, len(context) - 1)
        if keep < llm.n_tokens:
            if keep == 0 or not llm._ctx.kv_cache_seq_rm(-1, keep, -1):
                llm.reset()
                llm._ctx.kv_cache_clear()
                keep = 0
            llm.n_tokens = keep
        llm.eval(list(context[keep:]))
        self._known = len(context)

    def propose(self, context: Sequence[int], max_draft: int) -> list[int]:
        lc = self._lc
        llm = self.llm
        self._sync(context)
        out: list[int] = []
        while True:
            ptr = lc.llama_get_logits_ith(llm._ctx.ctx, -1)
            token = int(np.argmax(np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))))
            out.append(token)
            if len(out) >= max_draft or lc.llama_vocab_is_eog(self._vocab, token):
                return out
            llm.eval([token])

    def provenance(self) -> dict[str, Any]:
        return {"proposer": self.name, "draft_model_path": str(self.path),
                "draft_model_name": self.llm.metadata.get("general.name")}

    def close(self) -> None:
        self.llm.close()


def _check_same_tokenizer(draft: Any, target: Any, path: Path) -> None:
    """Drafted ids are verified as the target's ids: the vocabularies must be the same."""
    n = target.n_vocab()
    if draft.n_vocab() != n:
        raise ConfigError(
            f"--spec draft:{path}: the draft model has {draft.n_vocab()} tokens, the target "
            f"{n}; use a draft model with the target's tokenizer (same model family)"
        )
    for tok in list(range(min(n, 300))) + list(range(max(0, n - 300), n, 7)):
        if draft.detokenize([tok], special=True) != target.detokenize([tok], special=True):
            raise ConfigError(
                f"--spec draft:{path}: token {tok} differs between the draft and target "
                "vocabularies; use a draft model with the target's tokenizer"
            )


# ------------------------------------------------------------------------------ controller


class Speculator:
    """A proposer and the choice of how much of its draft to verify.

    Verifying k drafted tokens costs one target pass over k + 1 tokens. Where decoding is
    bound by memory bandwidth that pass costs little more than a single token; where it is
    bound by compute (one CPU thread) it costs about k + 1 single tokens, and drafting only
    loses. So the draft length is chosen each pass to maximise expected tokens per second:
    with acceptance probability a per drafted token (geometric model, tracked per kind of
    guess) a pass over k drafts yields (1 - a^(k+1)) / (1 - a) tokens, and its cost c(k+1)
    is measured online (moving average per batch size; unmeasured sizes are interpolated,
    and assumed cheap until measured so that every size gets tried). Zero drafts (a plain
    single-token pass) wins unless drafting is expected to pay by a margin, which keeps text
    with few repeats at the plain speed. Every `explore_every` passes a kind of guess that
    was turned off gets one short draft, so a change in acceptance is noticed.
    """

    def __init__(self, proposer: Proposer, max_draft: int, *, adaptive: bool = True,
                 margin: float = 0.05, prior_acceptance: float = 0.6,
                 explore_every: int = 128, margin_guard: float = MARGIN_GUARD) -> None:
        self.proposer = proposer
        self.margin_guard = margin_guard
        self.max_draft = max_draft
        self.adaptive = adaptive  # False: verify every drafted token (tests)
        self.margin = margin
        self.prior_acceptance = prior_acceptance
        self.explore_every = explore_every
        self._cost: dict[int, float] = {}  # batch size -> moving average seconds
        self._hits: dict[str, list[float]] = {}  # kind -> [accepted, rejections] (decayed)
        self._idle: dict[str, int] = {}  # kind -> passes since it was last drafted

    # -- estimates ----------------------------------------------------------------------
    def acceptance(self, key: str) -> float:
        hits = self._hits.get(key)
        if hits is None:
            return self.prior_acceptance
        ok, bad = hits
        return (ok + 1) / (ok + bad + 2) if bad else min(0.97, (ok + 1) / (ok + 2))

    def cost(self, size: int) -> float | None:
        known = sorted(self._cost)
        if not known:
            return None
        if size in self._cost:
            return self._cost[size]
        lower = [b for b in known if b < size]
        upper = [b for b in known if b > size]
        if lower and upper:
            b0, b1 = lower[-1], upper[0]
            c0, c1 = self._cost[b0], self._cost[b1]
            return c0 + (c1 - c0) * (size - b0) / (b1 - b0)
        # beyond what was measured: assume it costs no more than the nearest measured size
        return self._cost[lower[-1] if lower else upper[0]]

    def choose_length(self, available: int, key: str) -> int:
        """How many of `available` drafted tokens to verify (0: a plain pass)."""
        if available <= 0:
            return 0
        if not self.adaptive:
            return available
        idle = self._idle.get(key, 0)
        c1 = self.cost(1)
        if c1 is None:
            return min(available, 2)  # first pass: measure something
        a = self.acceptance(key)
        best_k, best = 0, (1.0 / c1) * (1 + self.margin)
        for k in range(1, available + 1):
            ck = self.cost(k + 1)
            assert ck is not None
            tokens = (1 - a ** (k + 1)) / (1 - a)
            if ck > 0 and tokens / ck > best:
                best_k, best = k, tokens / ck
        if best_k == 0 and idle >= self.explore_every:
            best_k = 1
        return best_k

    # -- feedback -----------------------------------------------------------------------
    def record_pass(self, size: int, seconds: float) -> None:
        old = self._cost.get(size)
        self._cost[size] = seconds if old is None else 0.8 * old + 0.2 * seconds

    def record(self, key: str, drafted: int, accepted: int) -> None:
        for k in self._idle:
            self._idle[k] += 1
        if not drafted:
            self._idle.setdefault(key, 0)
            return
        self._idle[key] = 0
        hits = self._hits.setdefault(key, [0.0, 0.0])
        hits[0] = 0.95 * hits[0] + accepted
        hits[1] = 0.95 * hits[1] + (1 if accepted < drafted else 0)

    def provenance(self) -> dict[str, Any]:
        return {**self.proposer.provenance(), "max_draft": self.max_draft,
                "draft_length": "chosen per pass from measured pass cost and acceptance"
                if self.adaptive else "every drafted token verified",
                "margin": self.margin, "margin_guard_logits": self.margin_guard}

    def close(self) -> None:
        self.proposer.close()


def build_speculator(settings: SpecSettings, target: SpeculativeTarget) -> Speculator | None:
    if not settings.enabled:
        return None
    if settings.mode == "prompt-lookup":
        return Speculator(PromptLookup(settings.ngram), settings.max_draft)
    from ..models import resolve_model

    assert settings.draft_model is not None
    model = resolve_model(settings.draft_model, progress=False)
    return Speculator(DraftModel(model.path, target), settings.max_draft)


# ------------------------------------------------------------------------------ decode loop


def eval_with_logits(llm: Any, tokens: list[int]) -> None:
    """Evaluate tokens as one batch after the cache, with logits at every one of them."""
    n_past = llm.n_tokens
    llm._batch.set_batch(batch=tokens, n_past=n_past, logits_all=True)
    llm._ctx.decode(llm._batch)
    llm.input_ids[n_past : n_past + len(tokens)] = tokens
    llm.n_tokens = n_past + len(tokens)
    llm._requires_eval = False


def rollback(llm: Any, keep: int) -> None:
    """Drop cache positions >= keep. The live logits then belong to a dropped position, so
    the next generation must re-evaluate the last kept token (`_requires_eval`)."""
    if not llm._ctx.kv_cache_seq_rm(-1, keep, -1):
        raise EngineError("llama.cpp cannot remove rejected draft tokens from the KV cache")
    llm.n_tokens = keep
    llm._requires_eval = True


class _SpeculativeDecode:
    """One speculative generation's state: the token log, the greedy choice, the context
    the proposer sees, and the counters it reports."""

    def __init__(self, engine: SpeculativeTarget, spec: Speculator, gbnf: str | None,
                 max_tokens: int) -> None:
        self.lc = engine.llama_cpp
        self.llm = engine.llm
        self.ctx = self.llm._ctx.ctx
        self.spec = spec
        self.max_tokens = max_tokens
        self.log = engine.token_log(max_tokens)
        self.chooser = engine.greedy_chooser(gbnf)
        self.drafted = self.accepted = self.passes = self.reevaluated = self.drafts = 0
        self.propose_ns = 0
        self.max_batch = max(1, self.llm.n_batch - 1)
        self.context: list[int] = []

    def decode(self, prompt: list[int], reused: int) -> int:
        """Decode to the end of the turn; returns how many prompt tokens were reused."""
        if reused < len(prompt):
            reused = evaluate_after_prefix(self.llm, prompt, reused)
        self.context = list(prompt)
        t0 = time.monotonic_ns()
        self.spec.proposer.begin(self.context)
        self.propose_ns += time.monotonic_ns() - t0
        token = self.chooser.choose(self.lc.llama_get_logits_ith(self.ctx, -1))
        logged = False  # the pending token was already logged (a re-evaluation)
        single = False  # the next pass evaluates the pending token alone
        while logged or self.log.add(token):
            if not logged:
                self.chooser.accept(token)
                self.context.append(token)
            step = self._pass(token, single)
            if step is None:
                break
            token, logged, single = step
        return reused

    def _pass(self, token: int, single: bool) -> tuple[int, bool, bool] | None:
        """One target pass over the pending token and a draft: the next (pending token,
        already logged, evaluate it alone), or None when the turn ended."""
        draft, key, t_proposed = self._draft(single)
        n_past = self.llm.n_tokens
        batch = [token, *draft]
        kept, stop, unsure, nxt = self._verify(batch, draft, t_proposed)
        self.spec.record(key, len(draft), kept)
        if draft:
            self.drafted += len(draft)
            self.accepted += kept
            self.drafts += 1
        # keep the pending token and the accepted drafts; a draft that ended the turn
        # is, like the plain loop's last token, not left in the cache; an unsure
        # position's token is taken out and evaluated again alone
        keep = n_past + 1 + kept - (1 if stop or unsure else 0)
        if keep < self.llm.n_tokens:
            rollback(self.llm, keep)
        if stop:
            return None
        if unsure:
            self.reevaluated += 1
            return batch[kept], True, True
        return nxt, False, False

    def _draft(self, single: bool) -> tuple[list[int], str, int]:
        """(the draft to verify, its kind, when proposing ended)."""
        spec = self.spec
        # a draft token that would be the last of the budget is never evaluated anyway
        k = 0 if single else min(spec.max_draft, self.max_batch,
                                 self.max_tokens - len(self.log.out) - 1)
        t0 = time.monotonic_ns()
        if k > 0 and not spec.proposer.cheap:
            k = spec.choose_length(k, spec.proposer.last_key)
        draft = spec.proposer.propose(self.context, k)[:k] if k > 0 else []
        key = spec.proposer.last_key
        draft = draft[: spec.choose_length(len(draft), key)]
        t1 = time.monotonic_ns()
        self.propose_ns += t1 - t0
        return draft, key, t1

    def _verify(self, batch: list[int], draft: list[int],
                t_proposed: int) -> tuple[int, bool, bool, int]:
        """Evaluate the batch and keep the drafts greedy decoding agrees with: (kept, the
        turn ended on a kept draft, a position was unsure, the target's next token)."""
        eval_with_logits(self.llm, batch)
        self.spec.record_pass(len(batch), (time.monotonic_ns() - t_proposed) / 1e9)
        self.passes += 1
        guard = self.spec.margin_guard
        chooser, log = self.chooser, self.log
        kept = 0
        nxt = -1
        for i in range(len(batch)):
            ptr = self.lc.llama_get_logits_ith(self.ctx, i)
            nxt = chooser.choose(ptr)
            if draft and guard and chooser.margin(ptr) < guard:
                return kept, False, True, nxt  # decide this position from a one-token pass
            if i == len(draft) or nxt != draft[i]:
                break
            kept += 1
            if not log.add(draft[i]):
                return kept, True, False, nxt
            chooser.accept(draft[i])
            self.context.append(draft[i])
        return kept, False, False, nxt

    def report(self, extra: dict[str, Any], grammar: bool) -> None:
        """The counters into the generation's `extra` (and the grammar's, under one)."""
        extra.update(
            spec=self.spec.proposer.name,
            spec_target_passes=self.passes,
            spec_propose_ms=self.propose_ns / 1e6,
            spec_acceptance=self.accepted / self.drafted if self.drafted else None,
            spec_drafts=self.drafts,
            spec_reevaluated=self.reevaluated,
            _spec_counts=(self.drafted, self.accepted),
        )
        if grammar:
            extra.update(self.chooser.counters())


def decode_speculative(
    engine: SpeculativeTarget,
    spec: Speculator,
    prompt: list[int],
    reused: int,
    gbnf: str | None,
    max_tokens: int,
    extra: dict[str, Any],
) -> tuple[int, TokenLog]:
    """Greedy decoding (optionally under a grammar) with drafts verified in one batch.

    Leaves the cache as the plain loops do: the prompt and every returned token but the last
    evaluated. llama.cpp's CPU kernels for a batch give logits up to ~0.3 apart from a
    one-token pass (Qwen2.5 Q4_K_M), so a near-tie can break the other way: a verified
    position whose margin is under `spec.margin_guard` is decided by a one-token pass
    instead. Plain greedy decoding shares the weakness (its output changes with how the
    prompt was split into batches); on the F32 tiny model the outputs are identical.
    """
    run = _SpeculativeDecode(engine, spec, gbnf, max_tokens)
    try:
        reused = run.decode(prompt, reused)
    except (RuntimeError, ValueError, OSError) as exc:
        raise EngineError(f"llama.cpp failed while generating: {exc}") from exc
    finally:
        run.chooser.close()
    run.report(extra, gbnf is not None)
    return reused, run.log
