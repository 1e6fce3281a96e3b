"""LlamaCppEngine on the tiny random-weight model: KV reuse, timestamps, grammar, limits."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import ROOT

from edgeagent.agent.actions import Action, action_grammar, parse_action
from edgeagent.engine.base import ContextOverflow, EngineError, Generation, Message, TurnTimeout
from edgeagent.engine.llamacpp import LlamaCppEngine
from edgeagent.engine.llamacpp_settings import EngineSettings
from edgeagent.engine.tool_format import tool_call_grammar
from edgeagent.sandbox.tools import TOOL_SPECS

SYSTEM = "You are a coding agent. Answer with one JSON tool call."
# Tools without string arguments: a random-weight model cannot close a free-form string
# within a few tokens, but it can always finish these calls under the grammar.
NO_ARG_SPECS = [s for s in TOOL_SPECS if s.name in ("run_tests", "submit")]


@pytest.fixture(scope="module")
def engine(tiny_model_path: Path) -> Iterator[LlamaCppEngine]:
    # one thread: OpenMP workers spin-wait, and two spinning processes on a shared 2-core
    # machine stall each other for seconds
    eng = LlamaCppEngine(tiny_model_path, EngineSettings(n_ctx=2048, threads=1))
    yield eng
    eng.close()


def _turn(task: str) -> list[Message]:
    return [Message("system", SYSTEM), Message("user", task)]


def _assert_accounting(gen: Generation) -> None:
    assert 0 <= gen.reused_tokens < gen.context_tokens
    assert gen.prefill_tokens == gen.context_tokens - gen.reused_tokens


# ------------------------------------------------------------------------ KV reuse


@pytest.mark.slow
@pytest.mark.parametrize("constrained", [False, True], ids=["free", "grammar"])
def test_next_turn_reuses_the_previous_prompt_and_generated_tokens(
    engine: LlamaCppEngine, constrained: bool
) -> None:
    grammar = action_grammar(NO_ARG_SPECS) if constrained else None
    messages = _turn(f"Fix calc.py, add() subtracts ({'grammar' if constrained else 'free'}).")
    max_tokens = 64 if constrained else 16
    first = engine.generate(messages, max_tokens=max_tokens, grammar=grammar)
    _assert_accounting(first)
    if constrained:
        assert first.finish_reason == "stop"
        assert (first.extra["grammar_checks"] + first.extra["grammar_forced"]
                == first.decoded_tokens)  # the fast path ran

    messages += [
        Message("assistant", first.text, tokens=first.tokens),
        Message("user", "Result of run_tests:\nFAILED (failures=1)"),
    ]
    second = engine.generate(messages, max_tokens=max_tokens, grammar=grammar)

    _assert_accounting(second)
    assert second.reused_tokens >= first.context_tokens > 0
    # The generated ids are spliced back, so the whole previous turn stays cached. A turn cut
    # by max_tokens never evaluated its last sampled token, so that one is evaluated now;
    # a turn that stopped had all its tokens evaluated (only the end token was not).
    not_evaluated = 1 if first.finish_reason == "length" else 0
    assert second.reused_tokens == first.context_tokens + len(first.tokens) - not_evaluated
    assert second.context_tokens > first.context_tokens + len(first.tokens)


@pytest.mark.slow
def test_identical_prompt_replays_only_the_last_token(engine: LlamaCppEngine) -> None:
    messages = _turn("Read the file named in the issue.")
    engine.generate(messages, max_tokens=8)
    again = engine.generate(messages, max_tokens=8)

    assert again.reused_tokens == again.context_tokens - 1
    assert again.prefill_tokens == 1


@pytest.mark.slow
def test_a_different_prompt_is_not_counted_as_reused(engine: LlamaCppEngine) -> None:
    engine.generate(_turn("first task: " + "alpha " * 20), max_tokens=4)
    other = engine.generate(
        [Message("user", "no system prompt this time"), Message("user", "beta")], max_tokens=4
    )
    _assert_accounting(other)
    # only the shared "<|im_start|>" can be kept: both prompts differ from the 2nd token on
    assert other.reused_tokens <= 1


# ------------------------------------------------------------------------ timestamps


@pytest.mark.slow
@pytest.mark.parametrize("max_tokens", [1, 12])
def test_timestamps_are_ordered_and_count_every_token(
    engine: LlamaCppEngine, max_tokens: int
) -> None:
    gen = engine.generate(_turn(f"timing check {max_tokens}"), max_tokens=max_tokens)

    assert gen.t_start_ns <= gen.t_prefill_start_ns <= gen.t_first_token_ns <= gen.t_end_ns
    times = gen.token_times_ns
    assert list(times) == sorted(times)
    assert len(times) == gen.decoded_tokens
    assert times[0] == gen.t_first_token_ns and times[-1] == gen.t_end_ns
    assert gen.finish_reason in ("stop", "length")
    assert len(gen.tokens) <= max_tokens
    assert 1 <= gen.decoded_tokens <= max_tokens + 1
    if gen.finish_reason == "length":
        assert gen.decoded_tokens == len(gen.tokens) == max_tokens
    else:  # the end-of-generation token is decoded but not returned
        assert gen.decoded_tokens == len(gen.tokens) + 1
    assert gen.ttft_ms >= gen.prefill_ms >= 0
    assert gen.render_ms >= 0 and gen.decode_ms >= 0
    if gen.decoded_tokens >= 2:
        assert gen.tpot_ms is not None and gen.tpot_ms >= 0
    else:
        assert gen.tpot_ms is None


# ------------------------------------------------------------------------ grammar


@pytest.mark.slow
@pytest.mark.parametrize(
    "task",
    [
        "Run the tests.",
        "add() in calc.py returns a - b; fix it.",
        "Submit when you are done.",
        '{ not json ] "quotes" \n\n newlines',
        "x" * 300,
    ],
)
def test_grammar_output_always_parses_to_an_action(engine: LlamaCppEngine, task: str) -> None:
    gen = engine.generate(_turn(task), max_tokens=64, grammar=action_grammar(NO_ARG_SPECS))

    assert gen.finish_reason == "stop", gen.text
    parsed = parse_action(gen.text, NO_ARG_SPECS)
    assert isinstance(parsed, Action), (gen.text, parsed)
    assert parsed.name in ("run_tests", "submit") and parsed.arguments == {}


# ------------------------------------------------------------------------ fast grammar path

# Lets the random-weight model's own argmax through about half the time, so both the
# accepted fast path and the rejected full-vocabulary path are exercised, and ends by EOG.
SMALL_GBNF = 'root ::= "{" [a-z_ "]{1,30} "}"'


def _both_paths(
    engine: LlamaCppEngine, turns: list[list[Message]], grammar: str, max_tokens: int
) -> dict[bool, list[tuple[Generation, int, list[int]]]]:
    """Each path from an empty cache: every turn's generation and the cache state it leaves."""
    results: dict[bool, list[tuple[Generation, int, list[int]]]] = {}
    try:
        for fast in (False, True):
            engine.fast_grammar = fast
            engine.llm.reset()
            runs = []
            for messages in turns:
                gen = engine.generate(messages, max_tokens=max_tokens, grammar=grammar)
                runs.append((gen, engine.llm.n_tokens, engine.llm._input_ids.tolist()))
            results[fast] = runs
    finally:
        engine.fast_grammar = True
    return results


def _assert_same(old: Generation, new: Generation) -> None:
    assert new.tokens == old.tokens
    assert new.text == old.text
    assert new.finish_reason == old.finish_reason
    assert new.decoded_tokens == old.decoded_tokens == len(new.token_times_ns)
    assert (new.context_tokens, new.reused_tokens, new.prefill_tokens) == (
        old.context_tokens,
        old.reused_tokens,
        old.prefill_tokens,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("grammar", "max_tokens"),
    [
        (action_grammar(NO_ARG_SPECS), 64),  # the argmax is nearly always rejected
        (SMALL_GBNF, 40),  # accepted and rejected argmaxes, ends on EOG
        (SMALL_GBNF, 5),  # cut by max_tokens
    ],
    ids=["tools", "small", "small-cut"],
)
@pytest.mark.parametrize("task", ["Run the tests.", "add() in calc.py returns a - b; fix it."])
def test_fast_grammar_path_matches_llama_generate(
    engine: LlamaCppEngine, grammar: str, max_tokens: int, task: str
) -> None:
    results = _both_paths(engine, [_turn(task)], grammar, max_tokens)
    (old, old_n, old_ids), (new, new_n, new_ids) = results[False][0], results[True][0]

    _assert_same(old, new)
    # the cache holds what Llama.generate leaves: the EOG token, or the last token of a
    # turn cut by max_tokens, is not evaluated
    assert new_n == old_n and new_ids == old_ids
    not_evaluated = 1 if new.finish_reason == "length" else 0
    assert new_n == new.context_tokens + len(new.tokens) - not_evaluated
    # each token is either checked against the logits or forced by the grammar alone
    assert new.extra["grammar_checks"] + new.extra["grammar_forced"] == new.decoded_tokens
    assert 0 <= new.extra["grammar_rejections"] <= new.extra["grammar_checks"]
    assert new.extra["grammar_ms"] >= 0
    assert old.extra == {}
    if grammar == SMALL_GBNF and max_tokens == 40:
        assert new.finish_reason == "stop"
        assert re.fullmatch(r'\{[a-z_ "]{1,30}\}', new.text), new.text


@pytest.mark.slow
def test_fast_grammar_path_exercises_both_branches(engine: LlamaCppEngine) -> None:
    engine.llm.reset()
    gens = [
        engine.generate(_turn(task), max_tokens=40, grammar=SMALL_GBNF)
        for task in ("Run the tests.", "add() in calc.py returns a - b; fix it.")
    ]
    checks = sum(g.extra["grammar_checks"] for g in gens)
    rejections = sum(g.extra["grammar_rejections"] for g in gens)
    assert 0 < rejections < checks


# A grammar whose tokens a random-weight model seldom ranks among its top candidates: some
# rejected argmaxes are then decided by filtering the whole vocabulary.
RARE_GBNF = 'root ::= [\u0400-\u04ff]{1,12} "."'


@pytest.mark.slow
def test_a_rejected_argmax_is_decided_among_the_top_candidates_or_the_whole_vocabulary(
        engine: LlamaCppEngine) -> None:
    """Both ways of finding the best allowed token after a rejection pick what the
    full-vocabulary sampler chain picks."""
    decided_in_top = full_filters = 0
    for grammar in (action_grammar(NO_ARG_SPECS), RARE_GBNF):
        (old, *_), (new, *_) = (
            runs[0] for runs in _both_paths(engine, [_turn("Run the tests.")], grammar, 24)
            .values())
        _assert_same(old, new)
        rejections, full = new.extra["grammar_rejections"], new.extra["grammar_full_filters"]
        assert 0 <= full <= rejections
        by_round = new.extra["grammar_decided_by_round"]
        memo = new.extra["grammar_start_memo_hits"]  # a first token, the engine seen it before
        assert memo in (0, 1)
        assert sum(by_round) + memo == rejections - full  # each rejection decided once
        decided_in_top += rejections - full
        full_filters += full
    assert decided_in_top > 0 and full_filters > 0  # both ways were taken


@pytest.mark.slow
def test_a_first_token_the_grammar_forces_is_decided_from_the_start_memo(
        tiny_model_path: Path) -> None:
    """The first generation under a grammar finds what it allows first by a whole pass; the
    next ones with that grammar take it from the engine's memo and pick what the
    full-vocabulary sampler chain picks, other prompts included."""
    eng = LlamaCppEngine(tiny_model_path, EngineSettings(n_ctx=2048, threads=2))
    try:
        turns = [_turn(t) for t in ("Run the tests.", "Run the tests.", "Fix calc.py.")]
        results = _both_paths(eng, turns, RARE_GBNF, 16)
        old, new = [g for g, *_ in results[False]], [g for g, *_ in results[True]]
        for a, b in zip(old, new, strict=True):
            _assert_same(a, b)
        assert [g.extra["grammar_start_memo_hits"] for g in new] == [0, 1, 1]
        assert new[0].extra["grammar_full_filters"] >= 1  # the pass that filled the memo
    finally:
        eng.close()


@pytest.mark.slow
@pytest.mark.parametrize("grammar", [action_grammar(NO_ARG_SPECS), SMALL_GBNF])
def test_fast_grammar_multi_turn_reuse_matches_llama_generate(
    engine: LlamaCppEngine, grammar: str
) -> None:
    first_turn = _turn("Fix calc.py, add() subtracts (multi-turn).")
    engine.llm.reset()
    first = engine.generate(first_turn, max_tokens=64, grammar=grammar)
    second_turn = first_turn + [
        Message("assistant", first.text, tokens=first.tokens),
        Message("user", "Result of run_tests:\nFAILED (failures=1)"),
    ]
    third = second_turn  # the identical prompt again: only the last token is replayed

    results = _both_paths(engine, [first_turn, second_turn, third], grammar, 64)

    for (old, old_n, old_ids), (new, new_n, new_ids) in zip(
        results[False], results[True], strict=True
    ):
        _assert_same(old, new)
        assert new_n == old_n and new_ids == old_ids
        _assert_accounting(new)
    (g1, *_), (g2, *_), (g3, *_) = results[True]
    assert g1.reused_tokens == 0
    not_evaluated = 1 if g1.finish_reason == "length" else 0
    assert g2.reused_tokens == g1.context_tokens + len(g1.tokens) - not_evaluated
    assert g3.reused_tokens == g3.context_tokens - 1 and g3.prefill_tokens == 1


@pytest.mark.slow
def test_fast_grammar_path_samples_from_a_fully_cached_prompt(engine: LlamaCppEngine) -> None:
    """A prompt that is exactly the evaluated cache is sampled from the live logits."""
    prompt = engine.prompt_tokens(_turn("Run the tests (cached)."))
    outcomes = []
    try:
        for fast in (False, True):
            engine.fast_grammar = fast
            engine.llm.reset()
            # leaves the prompt and the generated tokens but the last evaluated
            first = engine.generate(_turn("Run the tests (cached)."), max_tokens=4)
            evaluated = len(first.tokens) - (1 if first.finish_reason == "length" else 0)
            cached = prompt + list(first.tokens[:evaluated])
            assert engine.llm._input_ids.tolist() == cached
            reused = engine._reused_prefix(cached)
            assert reused == len(cached)
            if fast:
                extra: dict = {}
                reused, log = engine._decode_greedy_grammar(cached, reused, SMALL_GBNF, 8, extra)
            else:
                log = engine._decode_with_generate(cached, engine._grammar(SMALL_GBNF), 8)
            outcomes.append((reused, log.out, len(log.times), log.finish, engine.llm.n_tokens))
    finally:
        engine.fast_grammar = True
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] > len(prompt)  # nothing was evaluated before the first sample


@pytest.mark.slow
def test_fast_grammar_path_reports_an_unparseable_grammar(engine: LlamaCppEngine) -> None:
    with pytest.raises(EngineError):
        engine.generate(_turn("bad grammar"), max_tokens=4, grammar="root ::= (")
    # the engine still works afterwards
    gen = engine.generate(_turn("bad grammar"), max_tokens=40, grammar=SMALL_GBNF)
    assert gen.finish_reason == "stop"


def _tool_turns(engine: LlamaCppEngine, grammar: str) -> list[list[Message]]:
    """Three turns of native calls: a first, a second after the first's call and its result,
    and the second's prompt again (only its last token replayed)."""
    first_turn = _turn("Run the tests (native).")
    engine.llm.reset()
    first = engine.generate(first_turn, max_tokens=48, grammar=grammar)
    second = first_turn + [Message("assistant", first.text, tokens=first.tokens),
                           Message("user", "Result of run_tests:\nFAILED (failures=1)")]
    return [first_turn, second, second]


@pytest.mark.slow
def test_tokens_the_grammar_forces_skip_the_logits_and_change_nothing(
        tiny_tools_model_path: Path) -> None:
    """Native calls under the family grammar: the call marker the grammar forces first, and
    the end once the call is closed, are taken without logits (the prompt's last position,
    and the closing marker's, are evaluated without the output layer); the tokens, the text
    and the cache each turn leaves are those of the full-vocabulary sampler chain."""
    eng = LlamaCppEngine(tiny_tools_model_path, EngineSettings(n_ctx=2048, threads=1))
    try:
        tools = [{"type": "function", "function": {
            "name": s.name, "parameters": {"type": "object", "properties": {}}}}
            for s in NO_ARG_SPECS]
        grammar = tool_call_grammar("hermes", tools, single_tokens=eng.tool_markers).gbnf
        results = _both_paths(eng, _tool_turns(eng, grammar), grammar, 48)
        for (old, old_n, old_ids), (new, new_n, new_ids) in zip(
                results[False], results[True], strict=True):
            _assert_same(old, new)
            assert new_n == old_n and new_ids == old_ids
            assert new.extra["grammar_forced"] >= 1  # the call marker, at least
            assert new.text.startswith("<tool_call>")
            # llama.cpp's own clocks book the no-logits evaluations where they happened: the
            # prompt's in the prefill, each step's in the decode, inside the wall clocks
            assert new.engine_prefill_ms and new.engine_decode_ms is not None
            assert 0 < new.engine_prefill_ms <= new.prefill_ms
            assert new.engine_decode_ms <= new.decode_ms
        stopped = [g for g, *_ in results[True] if g.finish_reason == "stop"]
        assert stopped and all(g.extra["grammar_forced"] >= 2 for g in stopped)  # and the end
    finally:
        eng.close()


@pytest.mark.slow
def test_sampling_with_a_grammar_keeps_the_sampler_chain(tiny_model_path: Path) -> None:
    eng = LlamaCppEngine(tiny_model_path, EngineSettings(n_ctx=512, threads=1, temperature=0.7))
    try:
        gen = eng.generate(_turn("Run the tests."), max_tokens=40, grammar=SMALL_GBNF)
        assert "grammar_checks" not in gen.extra
        assert re.fullmatch(r'\{[a-z_ "]{1,30}\}', gen.text), gen.text
        assert eng.provenance()["grammar_sampling"] == "full vocabulary"
    finally:
        eng.close()


# ------------------------------------------------------------------------ limits


@pytest.mark.slow
@pytest.mark.parametrize(("temperature", "grammar"), [(0.0, None), (0.0, SMALL_GBNF),
                                                      (0.7, SMALL_GBNF)],
                         ids=["greedy", "greedy-grammar", "sampled-grammar"])
def test_a_turn_past_its_timeout_ends_with_turn_timeout(
        tiny_model_path: Path, temperature: float, grammar: str | None) -> None:
    """Each decode loop stops a turn past `turn_timeout_s` (here before its first token, as
    after a prefill that alone took longer); a generous limit changes no token."""
    settings = dict(n_ctx=2048, threads=1, temperature=temperature, seed=3)
    messages = _turn("add() in calc.py returns a - b; fix it.")
    unbounded = LlamaCppEngine(tiny_model_path, EngineSettings(**settings))
    bounded = LlamaCppEngine(tiny_model_path, EngineSettings(**settings, turn_timeout_s=60.0))
    tight = LlamaCppEngine(tiny_model_path, EngineSettings(**settings, turn_timeout_s=1e-9))
    try:
        free = unbounded.generate(messages, max_tokens=24, grammar=grammar)
        assert bounded.generate(messages, max_tokens=24, grammar=grammar).tokens == free.tokens
        for _ in range(2):  # and again on the same engine: it stays usable
            with pytest.raises(TurnTimeout, match=r"within the turn timeout \(1e-09 s\)"):
                tight.generate(messages, max_tokens=24, grammar=grammar)
    finally:
        for eng in (unbounded, bounded, tight):
            eng.close()


@pytest.mark.slow
def test_context_overflow_when_the_prompt_exceeds_the_limit(engine: LlamaCppEngine) -> None:
    messages = _turn("overflow check")
    prompt_len = engine.generate(messages, max_tokens=1).context_tokens

    with pytest.raises(ContextOverflow) as info:
        engine.generate(messages, max_tokens=8, max_context_tokens=prompt_len - 5)
    assert info.value.needed == prompt_len + 8
    assert info.value.limit == prompt_len - 5
    assert str(prompt_len - 5) in str(info.value)

    # the engine's own window caps a larger max_context_tokens
    with pytest.raises(ContextOverflow) as info:
        engine.generate(messages, max_tokens=engine.n_ctx, max_context_tokens=10 * engine.n_ctx)
    assert info.value.limit == engine.n_ctx

    # the engine still works after refusing
    assert engine.generate(messages, max_tokens=2).context_tokens == prompt_len


@pytest.mark.slow
def test_prompt_that_just_fits_is_accepted(engine: LlamaCppEngine) -> None:
    messages = _turn("fits check")
    prompt_len = engine.generate(messages, max_tokens=1).context_tokens
    gen = engine.generate(messages, max_tokens=4, max_context_tokens=prompt_len + 4)
    assert len(gen.tokens) <= 4


# ------------------------------------------------------------------------ token budget


@pytest.mark.slow
def test_truncate_keeps_head_and_tail_within_budget(engine: LlamaCppEngine) -> None:
    text = "".join(f"line {i}: return a - b\n" for i in range(400))
    budget = 90  # room for the marker (about 28 tokens in the tiny vocabulary) and a line each side
    assert engine.count_tokens(text) > 10 * budget

    cut = engine.truncate_to_tokens(text, budget)

    marker = re.search(r"\n\[\.\.\. (\d+) tokens truncated \.\.\.\]\n", cut)
    assert marker is not None, cut
    assert int(marker.group(1)) > 0
    # the head and tail share the budget with the marker; with this tiny vocabulary the
    # marker itself costs more tokens than with a real model's, so it is allowed on top
    assert engine.count_tokens(cut) <= budget + engine.count_tokens(marker.group(0))
    assert cut.startswith("line 0: return")
    assert cut.endswith("line 399: return a - b\n")


@pytest.mark.slow
def test_truncate_leaves_short_text_unchanged(engine: LlamaCppEngine) -> None:
    text = "def add(a, b):\n    return a - b\n"
    n = engine.count_tokens(text)
    assert n > 0
    assert engine.truncate_to_tokens(text, n) == text
    assert engine.truncate_to_tokens(text, n + 100) == text
    assert engine.truncate_to_tokens("", 10) == ""


@pytest.mark.slow
def test_count_tokens_grows_with_the_text(engine: LlamaCppEngine) -> None:
    assert engine.count_tokens("") == 0
    one = engine.count_tokens("read_file calc.py")
    assert one > 0
    assert engine.count_tokens("read_file calc.py " * 10) >= 9 * one


# ------------------------------------------------------------------------ provenance


def _tiny_model_shape() -> object:
    tool = ROOT / "tools" / "make_tiny_model.py"
    spec = importlib.util.spec_from_file_location("make_tiny_model_shape", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_provenance_describes_the_model(engine: LlamaCppEngine, tiny_model_path: Path) -> None:
    prov = engine.provenance()

    assert prov["architecture"] == "llama"
    assert prov["model_name"] == "tiny-random-llama"
    assert prov["model_path"] == str(tiny_model_path)
    assert isinstance(prov["parameters"], int) and prov["parameters"] > 0
    assert prov["model_size_bytes"] > 0
    assert prov["quantization"] == "F32"  # general.file_type 0
    assert prov["n_ctx"] == engine.n_ctx == 2048
    assert prov["n_threads"] == 1
    assert prov["sampling"] == "greedy"
    assert prov["chat_template"] == "gguf"
    assert isinstance(prov["system_info"], str) and prov["system_info"]
    # f16 K and V: layers x kv heads x (key dim + value dim) x 2 bytes
    shape = _tiny_model_shape()
    head_dim = shape.N_EMBD // shape.N_HEAD
    expected = shape.N_LAYER * shape.N_HEAD_KV * (2 * head_dim) * 2
    assert prov["kv_bytes_per_token"] == expected > 0


@pytest.mark.slow
def test_kv_cache_bytes_cover_prompt_and_generated_tokens(engine: LlamaCppEngine) -> None:
    gen = engine.generate(_turn("kv bytes check"), max_tokens=6)
    per_token = engine.provenance()["kv_bytes_per_token"]
    assert gen.kv_cache_bytes == (gen.context_tokens + len(gen.tokens)) * per_token


@pytest.mark.slow
@pytest.mark.parametrize("task", ["Fix calc.py", "Écris « bonjour » en 中文", "emoji 🙂 please"])
def test_streamed_pieces_add_up_to_the_text(engine: LlamaCppEngine, task: str) -> None:
    """Unconstrained, the random model emits byte tokens that split characters: each piece
    must still be whole text, and together they must be the recorded text."""
    pieces: list[str] = []
    gen = engine.generate(_turn(task), max_tokens=48, on_token=pieces.append)
    assert "".join(pieces) == gen.text
    assert all(pieces)  # a token that ends no character yet sends nothing, not ""
