"""The forced-token probes (engine/forced.py) against llama.cpp's own grammar sampler: at
every state of random walks through several grammars, a position the probes call forced is
one where the whole vocabulary allows that token alone (or only end-of-generation tokens),
and the probes find most of those positions. The grammar's named tokens are read as
llama.cpp's parser reads them."""

from __future__ import annotations

import ctypes
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from edgeagent.engine.forced import ForcedTokenProbe, named_tokens

WALKS = 60
STEPS = 30


@pytest.fixture(scope="module")
def vocab_llm(tiny_tools_model_path: Path) -> Iterator[Any]:
    import llama_cpp

    llm = llama_cpp.Llama(str(tiny_tools_model_path), vocab_only=True, n_ctx=512,
                          verbose=False)
    yield llm
    llm.close()


def _grammars(llm: Any) -> list[str]:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = {"type": "object", "required": ["a", "c"], "properties": {
        "a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}},
        "c": {"enum": ["x", "y\u00e9", "zz"]}}}
    return [
        json_schema_to_gbnf(json.dumps(schema)),
        'root ::= "\u00e9" [\u0400-\u04ff]{1,3} "\u00fc." | "x" . "y" | [^a-z]{2} "\\n\\n"',
        f'root ::= ("ab" | "abc" | "\u00e9\u00e8") "!" ("!" | <[{llm.token_eos()}]>)',
        'root ::= "{" [ \\t\\n]* "\\"k\\"" [ \\t\\n]* ":" [ \\t\\n]* ("true" | "null") "}"',
        'root ::= <tool_call> "\\n" [a-z]+ "\\n" </tool_call>',
        'root ::= [0-9]{1,4} ("." [0-9]{1,2})? " units"',
        # one first byte, several tokens: the one-byte token alone allowed among the probes
        'root ::= "name" " " ("path" | "pattern" | "py") "."',
    ]


class _WholeVocabulary:
    """The tokens llama.cpp's grammar sampler allows now, over the whole vocabulary."""

    def __init__(self, lc: Any, n_vocab: int) -> None:
        self._lc = lc
        self._data = (lc.llama_token_data * n_vocab)()
        self._view = np.ctypeslib.as_array(self._data)
        self._array = lc.llama_token_data_array(
            data=ctypes.cast(self._data, lc.llama_token_data_p), size=n_vocab, selected=-1,
            sorted=False)

    def allowed(self, sampler: Any) -> np.ndarray:
        self._view["id"] = np.arange(len(self._view))
        self._view["logit"] = 0.0
        self._array.selected = -1
        self._array.sorted = False
        self._lc.llama_sampler_apply(sampler, ctypes.byref(self._array))
        return np.flatnonzero(self._view["logit"] != -np.inf)


def _walk(llm: Any) -> tuple[int, int]:
    """Random walks through the grammars: every position the probes call forced must be one
    the whole vocabulary agrees on. (positions found, positions truly forced)"""
    import llama_cpp as lc

    vocab, n_vocab = llm._model.vocab, llm.n_vocab()
    probe = ForcedTokenProbe(lc, vocab, n_vocab)
    whole = _WholeVocabulary(lc, n_vocab)
    is_eog = np.array([bool(lc.llama_vocab_is_eog(vocab, t)) for t in range(n_vocab)])
    rng = random.Random(0)
    grammars = _grammars(llm)
    found = truly_forced = 0
    for walk in range(WALKS):
        gbnf = grammars[walk % len(grammars)]
        probes = probe.for_grammar(gbnf, lambda t: llm.tokenize(
            t.encode(), add_bos=False, special=True))
        assert probes is not None
        sampler = lc.llama_sampler_init_grammar(vocab, gbnf.encode(), b"root")
        between = True
        for _ in range(STEPS):
            allowed = whole.allowed(sampler)
            forced_here = allowed.size == 1 or bool(allowed.size and is_eog[allowed].all())
            token = probes.forced(sampler) if between else None
            if token is not None:
                assert forced_here and token in allowed, (gbnf, token, allowed[:8])
                found += 1
            truly_forced += forced_here
            text = allowed[~is_eog[allowed]]
            if not text.size:
                break
            chosen = int(rng.choice(text))
            lc.llama_sampler_accept(sampler, chosen)
            between = bool(probe.ends_ascii[chosen])
        lc.llama_sampler_free(sampler)
    return found, truly_forced


def test_a_forced_position_is_one_the_whole_vocabulary_agrees_on(vocab_llm: Any) -> None:
    """A SentencePiece vocabulary with byte fallback: text is never forced there (a byte
    and its character token both write it), only named and end tokens."""
    found, truly_forced = _walk(vocab_llm)
    assert truly_forced > 20 and found >= truly_forced // 2, (found, truly_forced)


@pytest.mark.model
def test_forced_positions_in_the_default_models_byte_level_vocabulary() -> None:
    """Byte-level BPE (Qwen2.5, ~152k tokens): one one-byte token per byte, standing in for
    every token that starts with it (the stand-in rule and the class test at work)."""
    import llama_cpp

    from edgeagent.models import DEFAULT_MODEL, resolve_model

    llm = llama_cpp.Llama(str(resolve_model(DEFAULT_MODEL, progress=False).path),
                          vocab_only=True, n_ctx=512, verbose=False)
    try:
        found, truly_forced = _walk(llm)
    finally:
        llm.close()
    assert truly_forced > 20 and found >= truly_forced * 3 // 4, (found, truly_forced)


def test_a_negated_token_is_never_called_forced(vocab_llm: Any) -> None:
    """`!<[id]>` allows every token but one: nothing there is forced. (Not in the walks:
    llama.cpp's accept can throw on a token its apply let through at such a position.)"""
    import llama_cpp as lc

    vocab = vocab_llm._model.vocab
    probe = ForcedTokenProbe(lc, vocab, vocab_llm.n_vocab())
    gbnf = f'root ::= <tool_call> !<[{vocab_llm.token_eos()}]>'
    probes = probe.for_grammar(gbnf, lambda t: vocab_llm.tokenize(
        t.encode(), add_bos=False, special=True))
    assert probes is not None
    sampler = lc.llama_sampler_init_grammar(vocab, gbnf.encode(), b"root")
    try:
        marker = probes.forced(sampler)
        assert marker == vocab_llm.tokenize(b"<tool_call>", add_bos=False, special=True)[0]
        lc.llama_sampler_accept(sampler, marker)
        assert probes.forced(sampler) is None
    finally:
        lc.llama_sampler_free(sampler)


def test_named_tokens_are_read_as_llama_cpp_reads_them(vocab_llm: Any) -> None:
    def tokenize(text: str) -> list[int]:
        return vocab_llm.tokenize(text.encode(), add_bos=False, special=True)

    marker = tokenize("<tool_call>")
    assert len(marker) == 1
    gbnf = ('root ::= <[12]> !<[3]> "<[99]>" [<>] <tool_call> # <[5]> in a comment\n'
            'other ::= "\\"<[7]>\\"" [\\]<[8]>]')
    assert named_tokens(gbnf, tokenize, vocab_llm.n_vocab()) == {12, 3, marker[0]}
    assert named_tokens("root ::= <[x]>", tokenize, vocab_llm.n_vocab()) is None
    assert named_tokens("root ::= <no such token>", tokenize, vocab_llm.n_vocab()) is None
    assert named_tokens(f"root ::= <[{vocab_llm.n_vocab()}]>", tokenize,
                        vocab_llm.n_vocab()) is None
