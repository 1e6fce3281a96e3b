"""The pieces both greedy decode loops share (the engine's grammar loop in llamacpp.py and
speculative decoding): the per-token log with its stop rule, and the greedy choice from one
row of logits, grammar-checked. One copy, so the two loops pick and time tokens alike."""

from __future__ import annotations

import ctypes
import functools
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .base import EngineError, TurnTimeout
from .forced import GrammarProbe

# A rejected argmax: the best raw candidates are checked against the grammar in widening
# rounds, one call each, before it filters the whole vocabulary (~152k tokens, ~14-27 ms a
# time here). Under a grammar the allowed token is nearly always among the first 64; where the
# grammar allows little (only the end of the turn, after a finished call) it can rank lower,
# and the second round finds it for ~1 ms instead of a whole-vocabulary pass every turn.
TOP_CANDIDATES = (64, 4096)

# The whole-vocabulary pass is split over up to this many threads at once: llama.cpp's
# grammar apply only reads the grammar (llama_grammar_apply_impl takes it const, the vocab's
# piece cache too) and ctypes releases the GIL, so the parts run in parallel while the
# compute threads wait between two decodes.
@functools.cache
def _filter_pool() -> ThreadPoolExecutor:
    """The one worker pool the split passes share (created on first use), wide enough for
    one part per CPU."""
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="grammar")


# The tokens each grammar (its GBNF text) allows at its start, found by the first
# whole-vocabulary pass there. A generation's grammar sampler starts in a state that depends
# on the grammar text alone, so a rejected first argmax is decided from these ids by every
# later generation with the same grammar (the tool-call marker a native grammar forces first
# ranks ~100k for the default model: otherwise a whole pass every turn). One per engine.
StartAllowed = dict[str, np.ndarray]


class TokenLog:
    """Per-token bookkeeping shared by the decode loops: when each token was sampled,
    llama.cpp's counters at the first one, and the stop rule (end of generation, or
    max_tokens). The end-of-generation token is timed and counted but not kept. Past
    `deadline` (monotonic ns, with the `timeout_s` it came from) a token raises TurnTimeout."""

    def __init__(
        self,
        max_tokens: int,
        perf_now: Callable[[], tuple[float, float]],
        is_eog: Callable[[int], bool],
        on_token: Callable[[int], None] | None = None,
        deadline: tuple[int, float] | None = None,
    ) -> None:
        self.max_tokens = max_tokens
        self._deadline = deadline
        self._on_token = on_token
        self._perf_now = perf_now
        self._is_eog = is_eog
        self.out: list[int] = []
        self.times: list[int] = []
        self.finish = "length"
        self.perf_prefill: tuple[float, float] | None = None
        self.cpu_first_ns: int | None = None  # process CPU time at the first token

    def add(self, token: int) -> bool:
        """Record one sampled token; False when decoding must stop."""
        now = time.monotonic_ns()
        if self._deadline is not None and now > self._deadline[0]:
            raise TurnTimeout(self._deadline[1])
        self.times.append(now)
        if self.perf_prefill is None:
            self.perf_prefill = self._perf_now()
            self.cpu_first_ns = time.process_time_ns()
        if self._is_eog(token):
            self.finish = "stop"
            return False
        self.out.append(token)
        if self._on_token is not None:  # after the timestamp: a display never shifts it
            self._on_token(token)
        return len(self.out) < self.max_tokens


class GreedyChooser:
    """The token plain greedy decoding picks from one row of logits: the first argmax, or,
    under a grammar, the argmax checked against the grammar first and the grammar-filtered
    argmax when it is rejected (llama.cpp's common sampler does the same). The filtered argmax
    is looked for among the best raw candidates first, TOP_CANDIDATES of them in widening
    rounds (the grammar judges each token on its own, so the best allowed one there is the
    best allowed anywhere, unless a token outside has the same logit); the whole vocabulary
    only when they cannot decide.

    `buffers` are the engine's full-vocabulary candidate array, a numpy view of it and a
    1-element array (needed only with a grammar). One grammar sampler per generation: its
    state advances with every accepted token. `grammar_ns` times the grammar's work alone.
    `start_allowed`: the engine's memo of what each grammar allows first (StartAllowed);
    `filter_threads`: how many threads one whole-vocabulary pass may use; `forced`: the
    grammar's forced-token probes, for `forced_next`.
    """

    def __init__(self, llama_cpp: Any, vocab: Any, n_vocab: int,
                 buffers: tuple[Any, np.ndarray, Any] | None, gbnf: str | None,
                 start_allowed: StartAllowed | None = None, filter_threads: int = 1,
                 forced: GrammarProbe | None = None) -> None:
        lc = llama_cpp
        self._lc = lc
        self._n_vocab = n_vocab
        self._gbnf = gbnf
        self._start_allowed = start_allowed
        self._accepted = 0  # tokens the grammar has advanced over
        self.start_memo_hits = 0  # rejected first argmaxes decided from StartAllowed
        self.smpl = None
        self._filtered = False
        self._filtered_margin = 0.0  # top-1 minus top-2 allowed logit, at a rejected argmax
        self.checks = self.rejections = 0
        self.full_filters = 0  # rejections the top candidates could not decide
        self.decided_by_round: list[int] = []  # rejections each round of candidates decided
        self.grammar_ns = 0
        self._forced = forced
        self._between_characters = True  # no token accepted yet, or one ending in ASCII
        self.forced_tokens = 0  # positions whose token the grammar alone decided
        if gbnf is None:
            return
        assert buffers is not None
        data, view, one = buffers
        self._view, self._one = view, one
        self._single = lc.llama_token_data_array(
            data=ctypes.cast(one, lc.llama_token_data_p), size=1, selected=-1, sorted=False
        )
        # a round as wide as the vocabulary would be the whole-vocabulary pass: left out
        self._rounds = tuple(sorted({k for k in TOP_CANDIDATES if k < n_vocab}))
        self.decided_by_round = [0] * len(self._rounds)
        self._top = lc.llama_token_data_array(  # its size is set per round
            data=ctypes.cast(data, lc.llama_token_data_p), size=1, selected=-1, sorted=False
        )
        self._single_ref = ctypes.byref(self._single)
        self._top_ref = ctypes.byref(self._top)
        self._parts = _split_arrays(lc, data, n_vocab, max(1, filter_threads))
        self.smpl = lc.llama_sampler_init_grammar(vocab, gbnf.encode(), b"root")
        if not self.smpl:
            raise EngineError("llama.cpp could not parse the grammar")

    def choose(self, ptr: Any, position: str = "a verified position") -> int:
        """The greedy token from the logits at `ptr` (`position` names it in the error)."""
        if not ptr:
            raise EngineError(f"llama.cpp returned no logits for {position}")
        logits = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))
        token = int(np.argmax(logits))  # the first maximum, as llama.cpp's greedy
        self._filtered = False
        if self.smpl is None:
            return token
        t0 = time.monotonic_ns()
        self.checks += 1
        one = self._one
        one[0].id = token
        one[0].logit = float(logits[token])
        one[0].p = 0.0
        self._single.selected = -1
        self._lc.llama_sampler_apply(self.smpl, self._single_ref)
        if one[0].logit == -np.inf:
            token = self._filtered_argmax(logits)
        self.grammar_ns += time.monotonic_ns() - t0
        return token

    def _filtered_argmax(self, logits: np.ndarray) -> int:
        """The argmax was rejected: the best allowed token, from the top candidates when they
        decide it, else from the whole vocabulary filtered by the grammar."""
        self.rejections += 1
        self._filtered = True
        if self._accepted == 0 and self._start_allowed is not None:
            ids = self._start_allowed.get(self._gbnf)
            if ids is not None:
                self.start_memo_hits += 1
                return self._best_of(logits, ids)
        for i, k in enumerate(self._rounds):
            token = self._top_allowed(logits, k)
            if token is not None:
                self.decided_by_round[i] += 1
                return token
        return self._whole_vocabulary_argmax(logits)

    def _top_allowed(self, logits: np.ndarray, k: int) -> int | None:
        """The best allowed token among the top `k` candidates, or None when none is allowed
        or the best allowed one ties with the weakest candidate (a token outside the top with
        that logit and a lower id would be the first maximum)."""
        top = np.argpartition(logits, -k)[-k:]
        order = top[np.lexsort((top, -logits[top]))]  # best first, ties by id as argmax
        block = self._view[:k]
        block["id"] = order
        block["logit"] = logits[order]
        block["p"] = 0.0
        self._top.size = k
        self._top.selected = -1
        self._top.sorted = False
        self._lc.llama_sampler_apply(self.smpl, self._top_ref)
        allowed = np.flatnonzero(block["logit"] != -np.inf)
        if not allowed.size:
            return None
        best = float(logits[order[allowed[0]]])
        weakest = float(logits[order[-1]])
        if best == weakest:
            return None
        runner_up = (float(logits[order[allowed[1]]]) if allowed.size > 1 else weakest)
        self._filtered_margin = best - runner_up  # the weakest: a bound, understated
        return int(order[allowed[0]])

    def _best_of(self, logits: np.ndarray, ids: np.ndarray) -> int:
        """The best of the allowed `ids` (ascending): the first maximum, as argmax over the
        filtered vocabulary picks it, with the same margin."""
        values = logits[ids]
        best = int(np.argmax(values))
        if values[best] == -np.inf:
            raise EngineError("the grammar allows no token at this point")
        top2 = np.partition(values, -2)[-2:] if values.size > 1 else (-np.inf, values[0])
        self._filtered_margin = float(top2[1] - top2[0])
        return int(ids[best])

    def _whole_vocabulary_argmax(self, logits: np.ndarray) -> int:
        """The grammar filters the whole vocabulary (in parts at once), then argmax."""
        self.full_filters += 1
        view = self._view["logit"]
        view[:] = logits
        # the rounds (of this chooser or an earlier one: the buffer is the engine's) moved ids
        # around; ~0.1 ms against a pass of 14-27 ms
        self._view["id"] = np.arange(self._n_vocab)
        self._apply_in_parts()
        if self._accepted == 0 and self._start_allowed is not None:
            self._start_allowed[self._gbnf] = np.flatnonzero(view != -np.inf)
        token = int(np.argmax(view))
        if view[token] == -np.inf:
            raise EngineError("the grammar allows no token at this point")
        top2 = np.partition(view, -2)[-2:]
        self._filtered_margin = float(top2[1] - top2[0])
        return token

    def forced_next(self) -> int | None:
        """The token the grammar allows alone at the next position (an end-of-generation
        token where it can only end), found without logits (forced.py), or None. Greedy
        decoding picks exactly this token, so the position before it needs no logits."""
        if self.smpl is None or self._forced is None or not self._between_characters:
            return None
        t0 = time.monotonic_ns()
        token = self._forced.forced(self.smpl)
        self.grammar_ns += time.monotonic_ns() - t0
        if token is not None:
            self.forced_tokens += 1
        return token

    def margin(self, ptr: Any) -> float:
        """Top-1 minus top-2 logit among the tokens the grammar allows at this position
        (after `choose` on the same row: a rejected argmax left the filtered row in the
        candidate buffer; an accepted one is compared with the raw runner-up, which can
        only understate the margin)."""
        if self._filtered:
            return self._filtered_margin
        row = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))
        top2 = np.partition(row, -2)[-2:]
        return float(top2[1] - top2[0])

    def counters(self) -> dict[str, Any]:
        """The grammar's work in this generation, for the Generation's `extra`."""
        return {"grammar_checks": self.checks, "grammar_rejections": self.rejections,
                "grammar_decided_by_round": tuple(self.decided_by_round),
                "grammar_start_memo_hits": self.start_memo_hits,
                "grammar_full_filters": self.full_filters, "grammar_forced": self.forced_tokens,
                "grammar_ms": self.grammar_ns / 1e6}

    def _apply_in_parts(self) -> None:
        """The grammar sampler applied to every candidate, each part on its own thread (the
        first on this one)."""
        apply, smpl = self._lc.llama_sampler_apply, self.smpl
        for part, _ in self._parts:
            part.selected = -1
            part.sorted = False
        rest = [_filter_pool().submit(apply, smpl, ref) for _, ref in self._parts[1:]]
        apply(smpl, self._parts[0][1])
        for future in rest:
            future.result()

    def accept(self, token: int) -> None:
        """Advance the grammar over a kept token (nothing without a grammar)."""
        if self.smpl is not None:
            t0 = time.monotonic_ns()
            self._lc.llama_sampler_accept(self.smpl, token)
            self._accepted += 1
            if self._forced is not None:
                self._between_characters = self._forced.ends_between_characters(token)
            self.grammar_ns += time.monotonic_ns() - t0

    def close(self) -> None:
        if self.smpl is not None:
            self._lc.llama_sampler_free(self.smpl)
            self.smpl = None


def _split_arrays(lc: Any, data: Any, n_vocab: int, parts: int) -> list[tuple[Any, Any]]:
    """`parts` candidate arrays over consecutive slices of the full buffer `data`, each with
    a reference to pass to llama.cpp."""
    size = ctypes.sizeof(lc.llama_token_data)
    bounds = [n_vocab * i // parts for i in range(parts + 1)]
    arrays = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        start = ctypes.cast(ctypes.addressof(data) + lo * size, lc.llama_token_data_p)
        arrays.append(lc.llama_token_data_array(data=start, size=hi - lo, selected=-1,
                                                sorted=False))
    return [(a, ctypes.byref(a)) for a in arrays]
