"""BM25 over the chunks in memory, scored as SQLite FTS5's `bm25()` scores the `fts_chunks`
table (k1 = 1.2, b = 0.75, every column weight 1, one row's length = its tokens in all
columns, IDF = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6), so it ranks what FTS5 ranks.

Why not FTS5 itself: at 10k chunks an FTS5 OR query costs about 10 ms, most of it walking the
posting lists through the virtual-table interface (issue 23); here a query term's postings are
numpy arrays and a query is a few vector operations. FTS5 stays the durable copy and the
reference (`Index(text="fts5")` queries it, for tests and benches).

Tokens follow FTS5's default `unicode61` tokenizer: runs of letters and digits, folded to
lower case, everything else (the underscore included) separates.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

K1 = 1.2
B = 0.75
_TOKEN = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


class BM25Index:
    """Chunk id -> its tokens' counts; per-term posting arrays compiled on first use and
    dropped again when a chunk holding the term is added or removed."""

    def __init__(self) -> None:
        self._postings: dict[str, dict[int, int]] = {}  # term -> {chunk id: count}
        self._terms: dict[int, tuple[str, ...]] = {}  # chunk id -> its distinct terms
        self._length: dict[int, int] = {}  # chunk id -> tokens in all its columns
        self._total = 0
        self._compiled: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self._length)

    def add(self, rowid: int, *columns: str) -> None:
        self.remove([rowid])
        counts = Counter(t for column in columns for t in tokenize(column))
        for term, n in counts.items():
            self._postings.setdefault(term, {})[rowid] = n
            self._compiled.pop(term, None)
        self._terms[rowid] = tuple(counts)
        length = sum(counts.values())
        self._length[rowid] = length
        self._total += length

    def remove(self, rowids: Sequence[int]) -> None:
        for rowid in rowids:
            terms = self._terms.pop(rowid, None)
            if terms is None:
                continue
            self._total -= self._length.pop(rowid)
            for term in terms:
                posting = self._postings[term]
                del posting[rowid]
                if not posting:
                    del self._postings[term]
                self._compiled.pop(term, None)

    def _arrays(self, term: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(chunk ids, counts, chunk lengths) of the chunks holding term."""
        got = self._compiled.get(term)
        if got is None:
            posting = self._postings.get(term)
            if not posting:
                return None
            ids = np.fromiter(posting, dtype=np.int64, count=len(posting))
            tf = np.fromiter(posting.values(), dtype=np.float64, count=len(posting))
            dl = np.fromiter((self._length[i] for i in posting), dtype=np.float64,
                             count=len(posting))
            got = self._compiled[term] = (ids, tf, dl)
        return got

    def ranked(self, terms: Sequence[str], k: int) -> list[tuple[int, float]]:
        """(chunk id, FTS5's bm25 value: negative, lower is better) best first, for the chunks
        holding any of the (distinct, already lower-case) terms; equal scores by id."""
        n_rows = len(self._length)
        if n_rows == 0 or k <= 0:
            return []
        avgdl = self._total / n_rows
        ids_parts: list[np.ndarray] = []
        score_parts: list[np.ndarray] = []
        for term in dict.fromkeys(terms):  # FTS5 scores each distinct phrase once
            arrays = self._arrays(term)
            if arrays is None:
                continue
            ids, tf, dl = arrays
            idf = math.log((n_rows - len(ids) + 0.5) / (len(ids) + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            # the operations in FTS5's order (fts5_aux.c), so the sums agree to the last bit
            score_parts.append(idf * ((tf * (K1 + 1.0)) / (tf + K1 * (1 - B + B * dl / avgdl))))
            ids_parts.append(ids)
        if not ids_parts:
            return []
        all_ids = np.concatenate(ids_parts)
        unique, where = np.unique(all_ids, return_inverse=True)
        # bincount adds each chunk's terms in query order, as FTS5's loop over phrases does
        score = np.bincount(where, weights=np.concatenate(score_parts), minlength=len(unique))
        if k < len(unique):
            top = np.argpartition(-score, k - 1)[:k]
            # argpartition cuts ties at the boundary arbitrarily: take every tie, sort, cut
            top = np.flatnonzero(score >= score[top].min())
        else:
            top = np.arange(len(unique))
        order = top[np.lexsort((unique[top], -score[top]))][:k]
        return list(zip(unique[order].tolist(), (-score[order]).tolist(), strict=True))
