"""Percentiles and MLPerf LoadGen's early-stopping bound, in plain Python (no numpy needed).

`percentile` is numpy's default (linear interpolation between closest ranks, Hyndman-Fan
type 7), which vLLM, GenAI-Perf and guidellm report. `early_stopping_bound` is the conservative
percentile estimate MLPerf LoadGen reports for SingleStream when samples are few: with n
samples sorted ascending, it is the t-th largest sample for the largest t such that, were the
true q-quantile above it, seeing at most t samples at or above it would have probability at
most 1 - confidence (t >= 1; LoadGen counts the estimate itself as one of them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.99  # LoadGen's early-stopping confidence


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (q in [0, 100]) by linear interpolation, as numpy.percentile."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be in [0, 100], got {q}")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space (n may be in the thousands)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0:
        return 1.0
    if p >= 1:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    total = 0.0
    for i in range(k + 1):
        log_term = (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                    + i * log_p + (n - i) * log_q)
        total += math.exp(log_term)
    return min(1.0, total)


def _passes(n: int, t: int, q: float, confidence: float) -> bool:
    # at most t of n samples at/above the estimate, each with probability 1 - q
    return binomial_cdf(t, n, 1 - q) <= 1 - confidence


def min_samples_for_bound(q: float, confidence: float = CONFIDENCE) -> int:
    """The fewest samples for which a q-quantile early-stopping bound exists (64 for p90)."""
    n = 1
    while not _passes(n, 1, q, confidence):
        n += 1
    return n


@dataclass(frozen=True)
class Bound:
    """A conservative percentile estimate, or None with the reason."""

    value: float | None
    discarded: int  # highest samples LoadGen "would discard" (t - 1)
    samples: int
    min_samples: int
    null_reason: str | None = None


def early_stopping_bound(
    values: Sequence[float], q: float = 0.90, confidence: float = CONFIDENCE
) -> Bound:
    """LoadGen's SingleStream early-stopping estimate of the q-quantile (q as a fraction)."""
    n = len(values)
    need = min_samples_for_bound(q, confidence)
    if n < need:
        return Bound(None, 0, n, need,
                     f"{n} sample{'' if n == 1 else 's'}; the early-stopping p{q * 100:g} "
                     f"bound needs at least {need}")
    # the passing t form a prefix 1..t*: the binomial CDF grows with t, so add its terms
    # one at a time until it exceeds 1 - confidence
    log_p, log_q, log_n = math.log(1 - q), math.log(q), math.lgamma(n + 1)
    cdf, t = 0.0, -1
    while t + 1 < n:
        i = t + 1
        cdf += math.exp(log_n - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                        + i * log_p + (n - i) * log_q)
        if cdf > 1 - confidence:
            break
        t = i
    ordered = sorted(values)
    return Bound(ordered[n - t], t - 1, n, need)
