"""One sample's verdict, by MLPerf's bfcl_v4_scorer.py rules (our code):

- hallucination subsets (irrelevance, live_irrelevance): 1 when the answer holds no native
  tool call, whatever its text says;
- live_relevance: 1 when it holds any native tool call (bfcl-eval ships no answers for it);
- every other subset: the calls read out of the answer (extract.py) go to bfcl-eval's AST
  checker against the record's possible answers (a record without any: 1 for no call).

A sample that never completed (context overflow, engine error) is no verdict: the aggregate
counts it as a failure (aggregate.py), as MLPerf counts an issued sample that never came back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .bfcl import CheckResult
from .extract import checker_calls, extract_calls, made_tool_call
from .records import BfclRecord
from .rules import ANY_CALL_SUBSETS, NO_CALL_SUBSETS


class Checker(Protocol):
    """bfcl-eval's AST checker (bfcl.AstChecker)."""

    def __call__(self, functions: Sequence[Mapping[str, Any]],
                 calls: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]],
                 subset: str) -> CheckResult: ...


@dataclass(frozen=True)
class Verdict:
    valid: bool
    rule: str  # no_call | any_call | ast | no_answer (an AST record without possible answers)
    made_call: bool  # the answer holds a native tool call
    calls: tuple[dict[str, Any], ...]  # the calls the AST rule reads: {"name", "arguments"}
    error: tuple[str, ...] = ()  # the checker's reasons, for an invalid AST verdict
    error_type: str | None = None

    @property
    def score(self) -> float:
        return 1.0 if self.valid else 0.0


def score_sample(record: BfclRecord, output: str, checker: Checker | None) -> Verdict:
    """The verdict on `output`, the string MLPerf scores (extract.scored_output). `checker`
    may be None for the tool-call presence rules, which do not use it."""
    made_call = made_tool_call(output)
    calls = tuple(extract_calls(output))
    if record.subset in NO_CALL_SUBSETS:
        return Verdict(not made_call, "no_call", made_call, calls,
                       () if not made_call else ("a tool call where none was right",),
                       None if not made_call else "hallucination:made_call")
    if record.subset in ANY_CALL_SUBSETS:
        return Verdict(made_call, "any_call", made_call, calls,
                       () if made_call else ("no tool call where one was right",),
                       None if made_call else "relevance:no_call")
    if not record.ground_truth:
        return Verdict(not calls, "no_answer", made_call, calls)
    if checker is None:
        raise ValueError(f"{record.id}: the AST rule needs bfcl-eval's checker")
    result = checker(record.functions, checker_calls(calls), record.ground_truth,
                     record.subset)
    return Verdict(result.valid, "ast", made_call, calls,
                   () if result.valid else result.error,
                   None if result.valid else result.error_type)
