"""Percentiles against numpy.percentile; the early-stopping bound against a direct exact
binomial computation (fractions, no floating point) and MLPerf's published minimum counts."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from edgeagent.results.percentiles import (
    binomial_cdf,
    early_stopping_bound,
    min_samples_for_bound,
    percentile,
)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 64, 101])
@pytest.mark.parametrize("q", [0, 10, 50, 90, 99, 100])
def test_percentile_matches_numpy(n: int, q: float) -> None:
    rng = random.Random(n * 1000 + q)
    values = [rng.lognormvariate(0, 1) for _ in range(n)]
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)), rel=1e-12)


def test_percentile_on_known_samples() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile(list(range(1, 11)), 90) == pytest.approx(9.1)
    with pytest.raises(ValueError):
        percentile([], 50)


def _exact_cdf(k: int, n: int, p: Fraction) -> Fraction:
    return sum((math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1)), Fraction(0))


def _reference_bound(values: list[float], q: Fraction, c: Fraction) -> float | None:
    """LoadGen's SingleStream rule, directly: the largest t >= 1 with
    P(Binomial(n, 1 - q) <= t) <= 1 - c; the estimate is the t-th largest sample."""
    n = len(values)
    passing = [t for t in range(1, n + 1) if _exact_cdf(t, n, 1 - q) <= 1 - c]
    if not passing:
        return None
    return sorted(values)[n - max(passing)]


def test_binomial_cdf_matches_the_exact_sum() -> None:
    for n, k, p in [(10, 3, 0.1), (64, 1, 0.1), (200, 25, 0.1), (662, 1, 0.01)]:
        exact = float(_exact_cdf(k, n, Fraction(p).limit_denominator(1000)))
        assert binomial_cdf(k, n, p) == pytest.approx(exact, rel=1e-9)


def test_minimum_samples_are_mlperfs() -> None:
    # MLPerf LoadGen early stopping: 64 queries for a p90, 662 for a p99 at 99% confidence
    assert min_samples_for_bound(0.90) == 64
    assert min_samples_for_bound(0.99) == 662


@pytest.mark.parametrize("n", [63, 64, 65, 100, 150, 300])
def test_bound_matches_the_direct_binomial_reference(n: int) -> None:
    rng = random.Random(n)
    values = [rng.expovariate(1.0) for _ in range(n)]
    bound = early_stopping_bound(values, 0.90)
    assert bound.value == _reference_bound(values, Fraction(9, 10), Fraction(99, 100))
    if bound.value is not None:
        # conservative: never below the plain percentile
        assert bound.value >= percentile(values, 90)


def test_bound_on_known_samples() -> None:
    values = [float(i) for i in range(1, 65)]  # 64 samples: only the maximum qualifies
    bound = early_stopping_bound(values, 0.90)
    assert bound.value == 64.0 and bound.discarded == 0
    few = early_stopping_bound(values[:10], 0.90)
    assert few.value is None and "needs at least 64" in few.null_reason
