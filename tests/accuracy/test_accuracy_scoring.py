"""The accuracy phase's rules against MLPerf's (mlcommons/endpoints bfcl_v4_scorer.py,
extractor.py, dataset_manager/predefined/bfcl_v4): per-sample verdicts on crafted outputs,
what is read out of an answer, the sampling of the edge config and the aggregation.

The tool-call presence rules and everything but the AST checker run without bfcl-eval; the
verdicts that need its checker are in test_accuracy_bfcl.py (skipped without the extra) and
here where a crafted record is enough (marked so)."""

from __future__ import annotations

import json

import pytest

from edgeagent.accuracy import (
    BfclRecord,
    SamplingPlan,
    Selection,
    breakdown,
    calls_in_text,
    checker_calls,
    extract_calls,
    made_tool_call,
    sample_records,
    sample_size,
    score_sample,
    scored_output,
    select_records,
    spread,
)
from edgeagent.accuracy.bfcl import AstChecker
from edgeagent.errors import UserError


def _checker_or_skip() -> AstChecker:
    try:
        return AstChecker()
    except UserError as exc:
        pytest.skip(f"needs bfcl-eval's AST checker (the [accuracy] extra): {exc}")


def record(subset: str, *, truth: tuple = (), rid: str = "") -> BfclRecord:
    function = {"name": "math.hypot", "description": "Euclidean norm",
                "parameters": {"type": "dict", "required": ["x", "y"], "properties": {
                    "x": {"type": "integer", "description": "x"},
                    "y": {"type": "integer", "description": "y"},
                    "z": {"type": "integer", "description": "z (optional)"}}}}
    tool = {"type": "function", "function": {**function, "name": "math_hypot"}}
    return BfclRecord(rid or f"{subset}_0", subset,
                      ({"role": "user", "content": "hypot of 4 and 5"},), (tool,),
                      (function,), truth)


def native(*calls: tuple[str, dict]) -> str:
    """An answer holding native calls, as the engine reads them (arguments as JSON text)."""
    return scored_output("", [(name, json.dumps(args)) for name, args in calls])


HYPOT_TRUTH = ({"math.hypot": {"x": [4], "y": [5], "z": ["", 0]}},)


# -- the tool-call presence rules (no checker) -------------------------------------------

@pytest.mark.parametrize("subset", ["irrelevance", "live_irrelevance"])
def test_no_call_on_an_irrelevance_record_is_right_and_a_call_is_wrong(subset: str) -> None:
    refusal = score_sample(record(subset), "None of the functions can do that.", None)
    assert refusal.valid and refusal.rule == "no_call" and not refusal.made_call
    called = score_sample(record(subset), native(("math_hypot", {"x": 1, "y": 2})), None)
    assert not called.valid and called.made_call


def test_a_call_written_as_text_is_no_call_for_the_hallucination_rule() -> None:
    # MLPerf counts only structured tool_calls there: text that reads like a call is text
    text = 'math_hypot(x=4, y=5)\n[{"name": "math_hypot", "arguments": {"x": 4}}]'
    verdict = score_sample(record("irrelevance"), text, None)
    assert verdict.valid and not verdict.made_call
    assert verdict.calls  # the AST rule would have read calls from it


def test_any_call_on_a_relevance_record_is_right_and_none_is_wrong() -> None:
    called = score_sample(record("live_relevance"), native(("anything", {})), None)
    assert called.valid and called.rule == "any_call"
    refused = score_sample(record("live_relevance"), "I would search for that.", None)
    assert not refused.valid and refused.error_type


def test_an_ast_record_without_possible_answers_is_right_only_without_calls() -> None:
    bare = record("live_simple")  # no ground truth
    assert score_sample(bare, "no call", None).valid
    assert not score_sample(bare, native(("math_hypot", {"x": 1})), None).valid


def test_the_ast_rule_needs_the_checker() -> None:
    with pytest.raises(ValueError, match="checker"):
        score_sample(record("simple_python", truth=HYPOT_TRUTH), "x", None)


# -- the AST rule on crafted answers (bfcl-eval's checker) -------------------------------

def test_right_call_wrong_argument_extra_call_and_no_call_on_a_simple_record() -> None:
    checker = _checker_or_skip()
    rec = record("simple_python", truth=HYPOT_TRUTH)
    right = score_sample(rec, native(("math_hypot", {"x": 4, "y": 5})), checker)
    assert right.valid and right.rule == "ast" and right.error == ()
    wrong = score_sample(rec, native(("math_hypot", {"x": 4, "y": 6})), checker)
    assert not wrong.valid and wrong.error_type and wrong.error
    extra = score_sample(rec, native(("math_hypot", {"x": 4, "y": 5}),
                                     ("math_hypot", {"x": 4, "y": 5})), checker)
    assert not extra.valid and "count" in (extra.error_type or "")
    none = score_sample(rec, "The hypotenuse is sqrt(41).", checker)
    assert not none.valid


def test_a_call_written_as_text_is_read_for_the_ast_rule() -> None:
    # MLPerf's extractor falls back to `name(key=value)` in the text when there is no
    # structured call, and the checker then judges it like any other call
    checker = _checker_or_skip()
    rec = record("simple_python", truth=HYPOT_TRUTH)
    assert score_sample(rec, "Calling math_hypot(x=4, y=5) now.", checker).valid
    assert not score_sample(rec, "Calling math_hypot(x=4, y=7) now.", checker).valid


# -- what is read out of an answer --------------------------------------------------------

def test_native_calls_are_scored_as_openai_tool_calls_json() -> None:
    output = scored_output("<tool_call>ignored text</tool_call>", [("f", '{"a": 1}')])
    items = json.loads(output)
    assert items[0]["function"] == {"name": "f", "arguments": '{"a": 1}'}
    assert made_tool_call(output) and extract_calls(output) == [
        {"name": "f", "arguments": {"a": 1}}]
    assert scored_output("plain text", []) == "plain text"


def test_the_extractor_takes_a_json_array_of_named_calls_before_text_calls() -> None:
    array = '[{"name": "f", "arguments": {"a": 1}}, {"name": "g"}]'
    assert extract_calls(array) == [{"name": "f", "arguments": {"a": 1}},
                                    {"name": "g", "arguments": {}}]
    assert not made_tool_call(array)  # a JSON array is not a native call
    assert extract_calls("") == [] and extract_calls("no call here.") == []


def test_text_calls_follow_mlperfs_heuristics() -> None:
    found = calls_in_text("Here: print(get_weather(city='Paris', days=3)) and "
                       "math.factorial(number=5); sig(city) or broken(x=")
    # print is skipped but the call inside it is read; `math.` is not part of the name;
    # `sig(city)` is a signature; an unclosed call is not read
    assert found == [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}},
                     {"name": "factorial", "arguments": {"number": 5}}]
    nested = calls_in_text("outer(a=inner(b=1), c='x)y')")
    assert nested == [{"name": "outer", "arguments": {"a": "inner(b=1)", "c": "x)y"}}]
    assert calls_in_text("f(1, 2)") == [{"name": "f", "arguments": {}}]  # positional dropped
    assert calls_in_text("f(a=1,,)") == [{"name": "f", "arguments": {"_raw": "a=1,,"}}]
    assert calls_in_text("nothing to call") is None


def test_checker_calls_parse_json_text_and_drop_nameless_entries() -> None:
    assert checker_calls([{"name": "f", "arguments": '{"a": 1}'},
                          {"name": "g", "arguments": "not json"},
                          {"arguments": {}}]) == [{"f": {"a": 1}}, {"g": {}}]


# -- sampling -----------------------------------------------------------------------------

def test_sample_size_is_mlperfs_head_with_its_floor() -> None:
    assert sample_size(400, 62, 25) == 248  # int(400 x 0.62)
    assert sample_size(25, 10, 25) == 25  # at the floor: whole
    assert sample_size(26, 10, 25) == 2
    assert sample_size(5, 10, None) == 1  # at least one
    assert sample_size(16, None, 25) == 16  # no category: whole


def _fake(subset: str, n: int) -> list[BfclRecord]:
    return [record(subset, rid=f"{subset}_{i}") for i in range(n)]


def test_sampling_takes_the_head_of_each_subset_in_sorted_subset_order() -> None:
    by_subset = {"simple_python": _fake("simple_python", 40),
                 "irrelevance": _fake("irrelevance", 30),
                 "live_parallel": _fake("live_parallel", 16)}
    chosen = sample_records(by_subset, SamplingPlan())
    assert [r.id for r in chosen] == (["irrelevance_0", "irrelevance_1", "irrelevance_2"]
                                      + [f"live_parallel_{i}" for i in range(16)]
                                      + [f"simple_python_{i}" for i in range(24)])


def test_limit_spreads_over_the_subsets_and_selection_checks_its_input() -> None:
    chosen = sample_records({"a_x": _fake("irrelevance", 3), "b_y": _fake("parallel", 3)},
                            SamplingPlan(subset_floor=25))
    assert [r.id for r in spread(chosen, 3)] == ["irrelevance_0", "parallel_0",
                                                  "irrelevance_1"]
    with pytest.raises(UserError, match="--subset bogus"):
        select_records(Selection(("bogus",)), load=lambda s: [])
    with pytest.raises(UserError, match="--limit 0"):
        Selection(limit=0).check()
    loaded: list[str] = []
    picked = select_records(Selection(("parallel", "irrelevance"), limit=2),
                            load=lambda s: loaded.append(s) or _fake(s, 50))
    assert sorted(loaded) == ["irrelevance", "parallel"]
    assert [r.id for r in picked] == ["irrelevance_0", "parallel_0"]


# -- aggregation --------------------------------------------------------------------------

def test_categories_aggregate_as_mlperf_does() -> None:
    scored = ([("simple_python", 1.0)] * 3 + [("simple_python", 0.0)]  # 0.75
              + [("simple_java", 0.0)] * 2  # 0.0
              + [("multiple", 1.0)] * 2  # 1.0
              + [("live_simple", 1.0)] * 1 + [("live_multiple", 0.0)] * 3  # 1/4 weighted
              + [("irrelevance", 1.0)] + [("live_irrelevance", 0.0)] * 3  # (1 + 0) / 2
              + [("live_relevance", 1.0)])
    out = breakdown(scored, missing=[])
    # non_live: mean(mean(0.75, 0.0), 1.0) = 0.6875 (simple_* grouped first)
    assert out["category_scores"] == {"non_live": 68.75, "live": 25.0, "hallucination": 50.0}
    assert out["normalized_single_turn_score"] == round((68.75 + 25 + 50) / 3, 2)
    assert out["overall_accuracy"] == round(100 * 8 / 17, 2)  # every sample, relevance too
    assert out["unscored_subsets"] == {"live_relevance": 100.0}
    assert out["total_samples"] == out["issued_samples"] == 17


def test_a_sample_that_never_completed_fails_its_subset() -> None:
    out = breakdown([("irrelevance", 1.0)], missing=["irrelevance", "live_simple"])
    assert out["subset_scores"] == {"irrelevance": 50.0, "live_simple": 0.0}
    assert out["total_samples"] == 1 and out["issued_samples"] == 3
    assert out["overall_accuracy"] == round(100 / 3, 2)
    empty = breakdown([], missing=["irrelevance"])
    assert empty["overall_accuracy"] == 0.0 and empty["issued_samples"] == 1
