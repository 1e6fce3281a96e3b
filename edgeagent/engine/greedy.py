"""The pieces both greedy decode loops share (the engine's grammar loop in llamacpp.py and
speculative decoding): the per-token log with its stop rule, and the greedy choice from one
row of logits, grammar-checked. One copy, so the two loops pick and time tokens alike."""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .base import EngineError, TurnTimeout

# A rejected argmax: the best raw candidates are checked against the grammar in widening
# rounds, one call each, before it filters the whole vocabulary (~152k tokens, ~14-27 ms a
# time here). Under a grammar the allowed token is nearly always among the first 64; where the
# grammar allows little (only the end of the turn, after a finished call) it can rank lower,
# and the second round finds it for ~1 ms instead of a whole-vocabulary pass every turn.
TOP_CANDIDATES = (64, 4096)


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
    """

    def __init__(self, llama_cpp: Any, vocab: Any, n_vocab: int,
                 buffers: tuple[Any, np.ndarray, Any] | None, gbnf: str | None) -> None:
        lc = llama_cpp
        self._lc = lc
        self._n_vocab = n_vocab
        self.smpl = None
        self._filtered = False
        self._filtered_margin = 0.0  # top-1 minus top-2 allowed logit, at a rejected argmax
        self.checks = self.rejections = 0
        self.full_filters = 0  # rejections the top candidates could not decide
        self.decided_by_round: list[int] = []  # rejections each round of candidates decided
        self.grammar_ns = 0
        if gbnf is None:
            return
        assert buffers is not None
        data, view, one = buffers
        self._data, self._view, self._one = data, view, one
        self._full = lc.llama_token_data_array(
            data=ctypes.cast(data, lc.llama_token_data_p), size=n_vocab, selected=-1,
            sorted=False,
        )
        self._single = lc.llama_token_data_array(
            data=ctypes.cast(one, lc.llama_token_data_p), size=1, selected=-1, sorted=False
        )
        # a round as wide as the vocabulary would be the whole-vocabulary pass: left out
        self._rounds = tuple(sorted({k for k in TOP_CANDIDATES if k < n_vocab}))
        self.decided_by_round = [0] * len(self._rounds)
        self._top = lc.llama_token_data_array(  # its size is set per round
            data=ctypes.cast(data, lc.llama_token_data_p), size=1, selected=-1, sorted=False
        )
        self._full_ref, self._single_ref = ctypes.byref(self._full), ctypes.byref(self._single)
        self._top_ref = ctypes.byref(self._top)
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

    def _whole_vocabulary_argmax(self, logits: np.ndarray) -> int:
        """The grammar filters the whole vocabulary, then argmax."""
        lc = self._lc
        self.full_filters += 1
        view = self._view["logit"]
        view[:] = logits
        # the rounds (of this chooser or an earlier one: the buffer is the engine's) moved ids
        # around; ~0.1 ms against a pass of 14-27 ms
        self._view["id"] = np.arange(self._n_vocab)
        full = self._full
        full.data = ctypes.cast(self._data, lc.llama_token_data_p)
        full.size = self._n_vocab
        full.selected = -1
        full.sorted = False
        lc.llama_sampler_apply(self.smpl, self._full_ref)
        token = int(np.argmax(view))
        if view[token] == -np.inf:
            raise EngineError("the grammar allows no token at this point")
        top2 = np.partition(view, -2)[-2:]
        self._filtered_margin = float(top2[1] - top2[0])
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
                "grammar_full_filters": self.full_filters, "grammar_ms": self.grammar_ns / 1e6}

    def accept(self, token: int) -> None:
        """Advance the grammar over a kept token (nothing without a grammar)."""
        if self.smpl is not None:
            t0 = time.monotonic_ns()
            self._lc.llama_sampler_accept(self.smpl, token)
            self.grammar_ns += time.monotonic_ns() - t0

    def close(self) -> None:
        if self.smpl is not None:
            self._lc.llama_sampler_free(self.smpl)
            self.smpl = None
