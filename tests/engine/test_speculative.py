"""Speculative decoding on the tiny model: greedy-exact output, KV state after rollback,
consistent counters, and the --spec settings."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import ROOT

from edgeagent.agent.actions import action_grammar
from edgeagent.config import load_config
from edgeagent.engine.base import Generation, Message
from edgeagent.engine.llamacpp import LlamaCppEngine
from edgeagent.engine.llamacpp_settings import EngineSettings, parse_spec
from edgeagent.engine.speculative import DraftModel, PromptLookup, Speculator
from edgeagent.errors import ConfigError
from edgeagent.sandbox.tools import TOOL_SPECS

NO_ARG_SPECS = [s for s in TOOL_SPECS if s.name in ("run_tests", "submit")]
SMALL_GBNF = 'root ::= "{" [a-z_ "]{1,30} "}"'
SYSTEM = "You are a coding agent."
# prompts that repeat spans (prompt lookup finds matches) and ones that do not
PROMPTS = [
    "Fix calc.py: " + "def add(a, b):\n    return a - b\n" * 3,
    "read_file path read_file path read_file path",
    "the the the the the the the the",
    "no repetition here: xyzzy 42",
    '{"name": "run_tests", "arguments": {}} ' * 2,
    "import self import self return null true false",
    "x" * 120,
    "assistant user system " * 4,
]


def _load_tool():
    tool = ROOT / "tools" / "make_tiny_model.py"
    spec = importlib.util.spec_from_file_location("make_tiny_model_spec", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def engine(tiny_model_path: Path) -> Iterator[LlamaCppEngine]:
    eng = LlamaCppEngine(tiny_model_path, EngineSettings(n_ctx=2048, threads=1))
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def other_draft_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Same tokenizer, different random weights: its drafts are mostly rejected."""
    out = tmp_path_factory.mktemp("tiny_draft") / "tiny-other.gguf"
    return _load_tool().write_tiny_model(out, seed=1)


@pytest.fixture(scope="module")
def speculators(
    engine: LlamaCppEngine, tiny_model_path: Path, other_draft_path: Path
) -> Iterator[dict[str, Speculator]]:
    specs = {
        # every draft verified, so that acceptance and rollback happen on every prompt; no
        # margin guard (the tiny model's logits are nearly flat, the guard would redo most
        # positions one by one)
        "prompt-lookup": Speculator(PromptLookup(3), 8, adaptive=False, margin_guard=0),
        "prompt-lookup-n1": Speculator(PromptLookup(1), 4, adaptive=False, margin_guard=0),
        "draft-self": Speculator(DraftModel(tiny_model_path, engine), 6, adaptive=False,
                                 margin_guard=0),
        "draft-other": Speculator(DraftModel(other_draft_path, engine), 4, adaptive=False,
                                  margin_guard=0),
        # with the guard: unsure positions are decided again by one-token passes
        "draft-self-guarded": Speculator(DraftModel(tiny_model_path, engine), 6,
                                         adaptive=False, margin_guard=0.05),
        # the draft length chosen from measured costs (whatever it chooses, same output)
        "prompt-lookup-adaptive": Speculator(PromptLookup(3), 8),
    }
    yield specs
    for s in specs.values():
        s.close()


def _gen(engine: LlamaCppEngine, spec: Speculator | None, messages: list[Message],
         max_tokens: int, grammar: str | None = None, fresh: bool = True) -> Generation:
    engine.speculator = spec
    try:
        if fresh:
            engine.llm.reset()
        return engine.generate(messages, max_tokens=max_tokens, grammar=grammar)
    finally:
        engine.speculator = None


def _assert_counters(gen: Generation) -> None:
    drafted, accepted = gen.spec_drafted, gen.spec_accepted
    assert drafted is not None and accepted is not None
    assert 0 <= accepted <= drafted
    passes = gen.extra["spec_target_passes"] - gen.extra["spec_reevaluated"]
    # each pass evaluates the pending token and its drafts and yields the accepted drafts
    # plus the target's own next token; a turn that ends on an accepted draft token has
    # no such next token; a position decided again by a one-token pass adds a pass
    assert passes in (gen.decoded_tokens - 1 - accepted, gen.decoded_tokens - accepted)
    if drafted:
        assert gen.extra["spec_acceptance"] == pytest.approx(accepted / drafted)
    else:
        assert gen.extra["spec_acceptance"] is None
    assert len(gen.token_times_ns) == gen.decoded_tokens


@pytest.mark.slow
@pytest.mark.parametrize(
    "grammar",
    [None, SMALL_GBNF, action_grammar(NO_ARG_SPECS)],
    ids=["free", "small-grammar", "action-grammar"],
)
def test_speculative_output_equals_plain_greedy(
    engine: LlamaCppEngine, speculators: dict[str, Speculator], grammar: str | None
) -> None:
    totals = {name: [0, 0] for name in speculators}
    reevaluated: dict[str, int] = {}
    for prompt in PROMPTS:
        messages = [Message("system", SYSTEM), Message("user", prompt)]
        max_tokens = 40 if grammar is None else 64
        plain = _gen(engine, None, messages, max_tokens, grammar)
        assert plain.spec_drafted is None
        for name, spec in speculators.items():
            gen = _gen(engine, spec, messages, max_tokens, grammar)
            assert gen.tokens == plain.tokens, (name, prompt)
            assert gen.text == plain.text
            assert gen.finish_reason == plain.finish_reason
            assert gen.decoded_tokens == plain.decoded_tokens
            assert (gen.context_tokens, gen.reused_tokens) == (
                plain.context_tokens, plain.reused_tokens)
            _assert_counters(gen)
            totals[name][0] += gen.spec_drafted or 0
            totals[name][1] += gen.spec_accepted or 0
            reevaluated[name] = reevaluated.get(name, 0) + gen.extra["spec_reevaluated"]
    # the draft model that is the target itself is always right without a grammar (it
    # drafts unconstrained); the other one mostly not
    drafted, accepted = totals["draft-self"]
    assert drafted > 0 and (accepted == drafted or grammar is not None)
    drafted, accepted = totals["draft-other"]
    assert drafted > 0 and accepted < drafted / 2
    # prompt lookup on a random model: both accepted and rejected drafts occur
    drafted, accepted = totals["prompt-lookup-n1"]
    assert 0 < accepted < drafted
    assert reevaluated["draft-self-guarded"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["prompt-lookup-n1", "draft-other", "draft-self"])
@pytest.mark.parametrize("grammar", [None, SMALL_GBNF], ids=["free", "grammar"])
def test_cache_after_rollback_serves_the_next_turn_like_a_fresh_one(
    engine: LlamaCppEngine, speculators: dict[str, Speculator], name: str, grammar: str | None
) -> None:
    """Turn 1 with speculation (drafts rejected and rolled back), then turn 2 reusing the
    cache, with and without speculation, equals turn 2 from an empty cache."""
    spec = speculators[name]
    messages = [Message("system", SYSTEM), Message("user", PROMPTS[0])]
    first = _gen(engine, spec, messages, 24, grammar)
    plain_first = _gen(engine, None, messages, 24, grammar)
    assert first.tokens == plain_first.tokens
    if name == "draft-other":
        assert first.spec_accepted is not None and first.spec_drafted is not None
        assert first.spec_accepted < first.spec_drafted  # something was rolled back
    evaluated = len(first.tokens) - (1 if first.finish_reason == "length" else 0)
    messages2 = messages + [
        Message("assistant", first.text, tokens=first.tokens),
        Message("user", "Result of run_tests:\nFAILED (failures=1) " + PROMPTS[1]),
    ]
    for follow_spec in (None, spec):
        _gen(engine, spec, messages, 24, grammar)  # leaves the rolled-back cache
        prompt1 = engine.prompt_tokens(messages)
        assert engine.llm._input_ids.tolist() == prompt1 + list(first.tokens[:evaluated])
        cached = _gen(engine, follow_spec, messages2, 24, grammar, fresh=False)
        fresh = _gen(engine, None, messages2, 24, grammar, fresh=True)
        assert cached.tokens == fresh.tokens
        assert cached.reused_tokens >= len(prompt1) + evaluated - 1


@pytest.mark.slow
def test_identical_prompt_after_speculation_replays_the_last_token(
    engine: LlamaCppEngine, speculators: dict[str, Speculator]
) -> None:
    messages = [Message("system", SYSTEM), Message("user", PROMPTS[2])]
    spec = speculators["draft-other"]
    first = _gen(engine, spec, messages, 12)
    again = _gen(engine, spec, messages, 12, fresh=False)
    assert again.tokens == first.tokens
    assert again.reused_tokens == again.context_tokens - 1


@pytest.mark.slow
def test_provenance_names_the_proposer(tiny_model_path: Path) -> None:
    spec = parse_spec("prompt-lookup", ngram=2, max_draft=5)
    eng = LlamaCppEngine(tiny_model_path, EngineSettings(n_ctx=512, threads=1, spec=spec))
    try:
        prov = eng.provenance()["speculative"]
        assert prov["proposer"] == "prompt-lookup"
        assert prov["ngram"] == 2 and prov["max_draft"] == 5
        gen = eng.generate([Message("user", PROMPTS[1])], max_tokens=8)
        assert gen.spec_drafted is not None
    finally:
        eng.close()
    plain = LlamaCppEngine(tiny_model_path, EngineSettings(n_ctx=512, threads=1))
    try:
        assert plain.provenance()["speculative"] is None
    finally:
        plain.close()


@pytest.mark.slow
def test_draft_model_with_another_tokenizer_is_refused(
    engine: LlamaCppEngine, tmp_path: Path
) -> None:
    tool = _load_tool()
    words = tool._WORDS
    try:
        tool._WORDS = words[:-3]  # a smaller vocabulary
        path = tool.write_tiny_model(tmp_path / "other-vocab.gguf", seed=0)
    finally:
        tool._WORDS = words
    with pytest.raises(ConfigError, match="tokenizer"):
        DraftModel(path, engine)


# ------------------------------------------------------------------------ settings


def test_parse_spec_accepts_the_three_forms() -> None:
    assert not parse_spec("off").enabled
    pl = parse_spec("prompt-lookup", ngram=4, max_draft=6)
    assert (pl.mode, pl.ngram, pl.max_draft) == ("prompt-lookup", 4, 6)
    dm = parse_spec("draft:/models/small.gguf")
    assert (dm.mode, dm.draft_model, dm.label()) == (
        "draft", "/models/small.gguf", "draft:/models/small.gguf")


@pytest.mark.parametrize("value", ["on", "draft:", "lookup", ""])
def test_parse_spec_rejects_other_values(value: str) -> None:
    with pytest.raises(ConfigError, match="'spec'"):
        parse_spec(value)


def test_config_keys_are_checked(tmp_path: Path) -> None:
    cfg = load_config(None, {"spec": "prompt-lookup", "spec_ngram": 2, "spec_max_draft": 4})
    assert (cfg.spec, cfg.spec_ngram, cfg.spec_max_draft) == ("prompt-lookup", 2, 4)
    path = tmp_path / "run.yaml"
    path.write_text("spec: sometimes\n")
    with pytest.raises(ConfigError, match=r"run\.yaml:1.*'spec'"):
        load_config(path)
    path.write_text("spec: prompt-lookup\nspec_max_draft: 0\n")
    with pytest.raises(ConfigError, match="spec_max_draft"):
        load_config(path)
    with pytest.raises(ConfigError, match="'spec'.*temperature"):
        load_config(None, {"spec": "prompt-lookup", "temperature": 0.7})
    # a server decodes an endpoint's run: a speculative setting would be silently ignored
    with pytest.raises(ConfigError, match="spec: speculative decoding runs in the in-process"):
        load_config(None, {"spec": "prompt-lookup", "endpoint": "http://127.0.0.1:8080/v1"})


# ------------------------------------------------------------------------ through the CLI


def _cli_run(tiny_model_path: Path, out_dir: Path, *extra: str) -> tuple[int, Path, str]:
    import contextlib
    import io

    from edgeagent import cli

    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = cli.main([
            "run", "--model", str(tiny_model_path), "--suite", "smoke", "--task", "fix-add",
            "--out", str(out_dir), "--max-steps", "2", "--max-new-tokens", "24",
            "--n-ctx", "2048", "--threads", "1", *extra,
        ])  # fmt: skip
    (run_dir,) = list(out_dir.iterdir())
    return code, run_dir, stdout.getvalue()


@pytest.mark.slow
def test_run_with_spec_records_the_same_steps_and_the_counters(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    from edgeagent.results.report import render_report
    from edgeagent.rundir import open_run_db

    def steps(run_dir: Path) -> list:
        db = open_run_db(run_dir)
        try:
            return db.execute("SELECT * FROM steps ORDER BY step").fetchall()
        finally:
            db.close()

    code, plain_dir, _ = _cli_run(tiny_model_path, tmp_path / "plain")
    assert code == 0
    code, spec_dir, _ = _cli_run(tiny_model_path, tmp_path / "spec", "--spec", "prompt-lookup",
                                 "--spec-ngram", "1", "--spec-max-draft", "4")
    assert code == 0
    plain, spec = steps(plain_dir), steps(spec_dir)
    assert [s["raw_output"] for s in spec] == [s["raw_output"] for s in plain]
    assert all(s["spec_drafted"] is None and s["spec_target_passes"] is None for s in plain)
    for s in spec:
        assert 0 <= s["spec_accepted"] <= s["spec_drafted"]
        # one pass per kept token that was not an accepted draft (more where a position
        # was decided again by a one-token pass)
        assert s["spec_target_passes"] >= s["decoded_tokens"] - 1 - s["spec_accepted"]
    report = render_report(spec_dir)
    drafted = sum(s["spec_drafted"] for s in spec)
    assert f"speculative decoding (prompt-lookup): {drafted} drafted" in report
    assert "speculative decoding" not in render_report(plain_dir)


def test_cli_names_a_bad_spec_value(tiny_model_path: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from edgeagent import cli

    code = cli.main(["run", "--model", str(tiny_model_path), "--out", str(tmp_path),
                     "--spec", "fast"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--spec" in err and "prompt-lookup" in err


# ------------------------------------------------------------------------ draft length


def _trained(costs: dict[int, float], key: str, accepted: int, drafted: int,
             times: int = 20) -> Speculator:
    spec = Speculator(PromptLookup(3), 8)
    for size, seconds in costs.items():
        spec.record_pass(size, seconds)
    for _ in range(times):
        spec.record(key, drafted, accepted)
    return spec


def test_drafting_is_skipped_where_a_batch_costs_its_tokens_one_by_one() -> None:
    linear = {b: 0.03 * b for b in range(1, 10)}
    spec = _trained(linear, "3-gram", accepted=7, drafted=8)
    assert spec.acceptance("3-gram") > 0.8
    assert spec.choose_length(8, "3-gram") == 0


def test_drafts_are_verified_in_full_where_a_batch_costs_little_more() -> None:
    cheap = {b: 0.03 * (1 + 0.05 * (b - 1)) for b in range(1, 10)}
    good = _trained(cheap, "3-gram", accepted=8, drafted=8)
    assert good.choose_length(8, "3-gram") == 8
    # rarely right: a short draft or none, and after enough idle passes one token explores
    bad = _trained(cheap, "1-gram", accepted=0, drafted=2)
    assert bad.choose_length(8, "1-gram") <= 1
    assert bad.choose_length(0, "1-gram") == 0


def test_an_unmeasured_speculator_tries_a_short_draft_first() -> None:
    spec = Speculator(PromptLookup(3), 8)
    assert spec.cost(3) is None
    assert spec.choose_length(8, "3-gram") == 2
    spec.record_pass(1, 0.03)
    spec.record_pass(3, 0.04)
    assert spec.cost(2) == pytest.approx(0.035)
    assert spec.cost(9) == pytest.approx(0.04)  # beyond the measured: the largest measured
