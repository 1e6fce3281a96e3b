"""Which token a grammar forces next, found without the model: where the grammar allows one
token only, greedy decoding picks it whatever the logits say, so the position that would
produce those logits can be evaluated without them (llama.cpp then skips the output layer,
a ~150k-row matrix that is about a quarter of a decode step for a 0.5B model; the KV cache
is computed exactly as before, so every later token is the same).

Testing every token against the grammar costs a whole-vocabulary pass (14-27 ms here), more
than it saves. A few hundred probes decide it instead, from how llama.cpp's grammar sampler
judges a token (llama_grammar_apply_impl): a token is allowed when each of its characters
can follow the last, and a token's first character alone is allowed whenever the whole
token is (a prefix of an allowed text is allowed). So when nothing starting with byte `b`
is allowed, the one-byte token `b` is rejected too. The probes are:

- every one-byte token: a stand-in for all the tokens that start with its byte;
- the tokens that start with a byte no one-byte token has, each for itself;
- every token that is not a plain text token (control, user-defined: their pieces are
  matched like text, but a grammar can also name them as tokens), and every end-of-generation
  token (allowed when the grammar can end);
- every token the grammar names (`<[id]>`, `<text>`), matched by id rather than by text.

A position is forced when exactly one probe is allowed and it stands for itself alone. The
rule needs the grammar between characters: after a token that ends inside a multi-byte
UTF-8 character the next token continues it, and the check is skipped (the caller asks
`ends_between_characters` of each token it accepts).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

# a piece's first byte that starts no UTF-8 character: llama.cpp's grammar rejects such a
# token between characters, so its class needs no stand-in (the token is probed itself)
_CONTINUATION = range(0x80, 0xC0)
# a stand-in allowed alone: its class (the text tokens with its first byte) is tested whole
# when it is this small (a newline's 34 tokens in Qwen2.5's vocabulary; a space's 53,021 not)
CLASS_LIMIT = 4096
# text tokens: a normal one, or a byte-fallback one (<0x41> writes "A"; a SentencePiece
# vocabulary then has two one-byte tokens for a byte, both stand-ins)
_TEXT_ATTRS = (1 << 2) | (1 << 5)  # LLAMA_TOKEN_ATTR_NORMAL | LLAMA_TOKEN_ATTR_BYTE


class ForcedTokenProbe:
    """The probes of one vocabulary (built once per engine: ~0.3 s for 152k tokens)."""

    def __init__(self, llama_cpp: Any, vocab: Any, n_vocab: int) -> None:
        self._lc = llama_cpp
        self.n_vocab = n_vocab
        first, single, normal, eog, self.ends_ascii = _vocab_table(llama_cpp, vocab, n_vocab)
        plain = normal & ~eog
        text = plain & (first >= 0)
        byte = np.maximum(first, 0)
        has_single = np.zeros(256, dtype=bool)
        has_single[first[text & single]] = True
        class_size = np.bincount(first[text], minlength=256)
        self._stand_in = text & single & (class_size[byte] > 1)
        alone = ~plain | (text & ~has_single[byte])
        alone |= text & np.isin(first, list(_CONTINUATION))
        self._base = np.flatnonzero(self._stand_in | (text & single) | alone)
        self._eog = eog
        self._first = first
        # the text tokens of each byte small enough to test whole behind a stand-in
        self._classes = {
            int(b): np.flatnonzero(text & (first == b))
            for b in np.flatnonzero((class_size > 1) & (class_size <= CLASS_LIMIT))
        }

    def for_grammar(self, gbnf: str, tokenize: Callable[[str], list[int]]) -> GrammarProbe | None:
        """The probes for one grammar, or None when its named tokens cannot be read (then
        no position is ever called forced)."""
        named = named_tokens(gbnf, tokenize, self.n_vocab)
        if named is None:
            return None
        ids = np.union1d(self._base, np.asarray(sorted(named), dtype=np.int64))
        # a named one-byte token stays a stand-in: it may be allowed as text, with its class
        stand_in = self._stand_in[ids]
        classes = [self._classes.get(int(self._first[t])) if s else None
                   for t, s in zip(ids, stand_in, strict=True)]
        return GrammarProbe(self._lc, ids, stand_in, classes, self._eog[ids], self.ends_ascii)


class GrammarProbe:
    """The probe candidates for one grammar, as llama.cpp candidate arrays."""

    def __init__(self, llama_cpp: Any, ids: np.ndarray, stand_in: np.ndarray,
                 classes: list[np.ndarray | None], eog: np.ndarray,
                 ends_ascii: np.ndarray) -> None:
        self._lc = llama_cpp
        self._ids = ids
        self._stand_in = stand_in  # per probe: it stands for other tokens of its first byte
        self._classes = classes  # per stand-in: those tokens, where few enough to test
        self._eog = eog
        self._ends_ascii = ends_ascii  # per vocabulary token (ForcedTokenProbe's)
        self._probes = _Candidates(llama_cpp, len(ids))
        self._members = _Candidates(llama_cpp, max((len(c) for c in classes if c is not None),
                                                   default=1))

    def ends_between_characters(self, token: int) -> bool:
        """After `token` the grammar stands between two characters (its piece ends in ASCII),
        where `forced` may be asked."""
        return bool(self._ends_ascii[token])

    def forced(self, grammar_sampler: Any) -> int | None:
        """The one token the grammar sampler's state allows (an end-of-generation token when
        it allows nothing else), or None when it may allow more or the probes cannot tell."""
        allowed = self._probes.allowed(grammar_sampler, self._ids)
        if allowed.size and self._eog[allowed].all():
            return int(self._ids[allowed[0]])  # the generation ends, whichever EOG
        if allowed.size != 1:
            return None
        if not self._stand_in[allowed[0]]:
            return int(self._ids[allowed[0]])
        members = self._classes[allowed[0]]
        if members is None:
            return None
        inside = self._members.allowed(grammar_sampler, members)
        return int(members[inside[0]]) if inside.size == 1 else None


class _Candidates:
    """A reusable llama.cpp candidate array of up to `size` tokens."""

    def __init__(self, llama_cpp: Any, size: int) -> None:
        lc = self._lc = llama_cpp
        self._data = (lc.llama_token_data * size)()
        self._view = np.ctypeslib.as_array(self._data)
        self._array = lc.llama_token_data_array(
            data=ctypes.cast(self._data, lc.llama_token_data_p), size=size, selected=-1,
            sorted=False)
        self._ref = ctypes.byref(self._array)

    def allowed(self, grammar_sampler: Any, ids: np.ndarray) -> np.ndarray:
        """The indices into `ids` of the tokens the grammar sampler allows now."""
        view = self._view[:len(ids)]
        view["id"] = ids
        view["logit"] = 0.0
        view["p"] = 0.0
        self._array.size = len(ids)
        self._array.selected = -1
        self._array.sorted = False
        self._lc.llama_sampler_apply(grammar_sampler, self._ref)
        return np.flatnonzero(view["logit"] != -np.inf)


def _vocab_table(lc: Any, vocab: Any, n_vocab: int) -> tuple[np.ndarray, ...]:
    """Per token, from the piece llama.cpp's grammar matches (special tokens' text included):
    its first byte (-1: empty piece), one byte long, a text token (_TEXT_ATTRS), an
    end-of-generation token, ends in an ASCII byte (after it the grammar stands between
    characters: a piece ending in a UTF-8 lead or continuation byte may leave one half
    written)."""
    buf = ctypes.create_string_buffer(256)
    first = np.full(n_vocab, -1, dtype=np.int32)
    single = np.zeros(n_vocab, dtype=bool)
    normal = np.zeros(n_vocab, dtype=bool)
    eog = np.zeros(n_vocab, dtype=bool)
    ends_ascii = np.zeros(n_vocab, dtype=bool)
    for token in range(n_vocab):
        n = lc.llama_token_to_piece(vocab, token, buf, len(buf), 0, True)
        if n > 0:
            first[token] = buf.raw[0]
            single[token] = n == 1
            ends_ascii[token] = buf.raw[n - 1] < 0x80
        normal[token] = bool(lc.llama_vocab_get_attr(vocab, token) & _TEXT_ATTRS)
        eog[token] = bool(lc.llama_vocab_is_eog(vocab, token))
    return first, single, normal, eog, ends_ascii


def named_tokens(gbnf: str, tokenize: Callable[[str], list[int]], n_vocab: int
                 ) -> set[int] | None:
    """The ids of the tokens a GBNF grammar names (`<[id]>`, `!<[id]>`, `<text>`), found as
    llama.cpp's parser finds them: outside string literals, character classes and comments.
    None when one cannot be read (llama.cpp would have refused the grammar)."""
    named: set[int] = set()
    i, end = 0, len(gbnf)
    while i < end:
        ch = gbnf[i]
        if ch == "#":
            newline = gbnf.find("\n", i)
            i = end if newline == -1 else newline + 1
        elif ch in "\"[":
            i = _skip_quoted(gbnf, i, '"' if ch == '"' else "]")
            if i < 0:
                return None
        elif ch == "<":
            close = gbnf.find(">", i)
            if close == -1:
                return None
            token = _token_id(gbnf[i:close + 1], tokenize)
            if token is None or not 0 <= token < n_vocab:
                return None
            named.add(token)
            i = close + 1
        else:
            i += 1
    return named


def _skip_quoted(text: str, start: int, closer: str) -> int:
    """The index after the literal or class that opens at `start` (-1: never closed)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == closer:
            return i + 1
        else:
            i += 1
    return -1


def _token_id(ref: str, tokenize: Callable[[str], list[int]]) -> int | None:
    """`<[123]>` -> 123; `<text>` -> the one token `<text>` tokenizes to (special tokens
    parsed), as llama.cpp's parse_token reads them."""
    if ref.startswith("<["):
        digits = ref[2:-2] if ref.endswith("]>") else ""
        return int(digits) if digits.isdigit() else None
    ids = tokenize(ref)
    return ids[0] if len(ids) == 1 else None
