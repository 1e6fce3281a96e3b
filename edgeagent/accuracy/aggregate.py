"""The accuracy breakdown of a run, as MLPerf's bfcl_v4_scorer.py builds it (our code, its
rules and field names):

- per subset: the mean of its samples' scores; an issued sample that never completed scores 0
  under its subset (the mean divides by what was issued, not by what came back);
- per category: live weighted by samples, non_live hierarchical (the simple_* subsets
  averaged into one score, then the mean with the others), hallucination the plain mean;
  a subset in no category (live_relevance) is reported under `unscored_subsets` only;
- `overall_accuracy`: the mean over every sample, live_relevance's too;
- `normalized_single_turn_score`: the mean of the category scores present;
- percentages rounded to 2 places; `total_samples` completed, `issued_samples` issued;
- the entry's `score` (overall_percent): overall_accuracy unrounded, in percent as the
  breakdown (MLPerf's checker: the BFCL headline is a percentage in [0, 100]).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .rules import AGGREGATION, CATEGORIES, CATEGORY_OF, SIMPLE_SUBSETS


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _pct(value: float) -> float:
    return round(value * 100, 2)


def category_score(category: str, by_subset: dict[str, list[float]]) -> float | None:
    """One category's score from its subsets' sample scores (None: none present)."""
    present = [s for s in CATEGORIES[category] if s in by_subset]
    if not present:
        return None
    means = {s: _mean(by_subset[s]) for s in present}
    strategy = AGGREGATION.get(category, "unweighted")
    if strategy == "sample_weighted":
        total = sum(len(by_subset[s]) for s in present)
        return sum(means[s] * len(by_subset[s]) for s in present) / total
    if strategy == "hierarchical":
        simple = [means[s] for s in SIMPLE_SUBSETS if s in means]
        top = ([_mean(simple)] if simple else []) + [
            means[s] for s in present if s not in SIMPLE_SUBSETS]
        return _mean(top)
    return _mean(list(means.values()))


def overall_percent(scored: Sequence[tuple[str, float]], missing: Sequence[str]) -> float:
    """MLPerf's entry `score`: the mean over every issued sample (one that never completed
    counts 0), in percent and unrounded, the scale MLPerf's checker gives the BFCL headline
    (compliance/checker.py: "the deepseek/bfcl headline are percentages in [0, 100]");
    0.0 when none completed, as MLPerf's zero result."""
    if not scored:
        return 0.0
    return 100.0 * _mean([score for _, score in scored] + [0.0] * len(missing))


def breakdown(scored: Sequence[tuple[str, float]], missing: Sequence[str]) -> dict[str, Any]:
    """MLPerf's breakdown from the completed samples' (subset, score) and the subsets of the
    issued samples that never completed."""
    issued = len(scored) + len(missing)
    if not scored:
        return {"overall_accuracy": 0.0, "normalized_single_turn_score": 0.0,
                "category_scores": {}, "subset_scores": {}, "unscored_subsets": {},
                "total_samples": 0, "issued_samples": issued}
    by_subset: dict[str, list[float]] = {}
    for subset, score in [*scored, *((s, 0.0) for s in missing)]:
        by_subset.setdefault(subset, []).append(score)
    categories = {c: v for c in CATEGORIES
                  if (v := category_score(c, by_subset)) is not None}
    every = [score for scores in by_subset.values() for score in scores]
    return {
        "overall_accuracy": _pct(_mean(every)),
        "normalized_single_turn_score": _pct(_mean(list(categories.values())))
        if categories else 0.0,
        "category_scores": {c: _pct(v) for c, v in categories.items()},
        "subset_scores": {s: _pct(_mean(v)) for s, v in by_subset.items()},
        "unscored_subsets": {s: _pct(_mean(v)) for s, v in by_subset.items()
                             if s not in CATEGORY_OF},
        "total_samples": len(scored),
        "issued_samples": issued,
    }
