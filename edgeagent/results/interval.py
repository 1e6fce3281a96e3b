"""Confidence intervals for a resolved rate from several seeded runs."""

from __future__ import annotations

import math


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials (95% at z = 1.96).

    Chosen over the normal approximation because resolved rates here sit near 0 or 1 on a
    few dozen attempts, where p +- z*sqrt(p(1-p)/n) leaves [0, 1] or collapses to a point."""
    if n <= 0:
        raise ValueError("n must be positive")
    if not 0 <= k <= n:
        raise ValueError("k must lie in 0..n")
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
