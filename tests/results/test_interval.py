"""The Wilson interval that tools/resolved_ci.py puts on a seeded resolved rate."""

from __future__ import annotations

import pytest

from edgeagent.results import wilson_interval


def test_known_values() -> None:
    # 4 of 15: the textbook Wilson 95% interval is 0.109-0.520
    lo, hi = wilson_interval(4, 15)
    assert lo == pytest.approx(0.1090, abs=5e-4) and hi == pytest.approx(0.5195, abs=5e-4)


def test_stays_inside_zero_one_at_the_edges() -> None:
    lo, hi = wilson_interval(0, 45)
    assert lo == 0.0 and 0.07 < hi < 0.09  # none resolved still leaves room above 0
    lo, hi = wilson_interval(45, 45)
    assert hi == 1.0 and 0.91 < lo < 0.93


def test_more_attempts_narrow_it() -> None:
    a, b = wilson_interval(5, 15), wilson_interval(15, 45)
    assert b[1] - b[0] < a[1] - a[0]


@pytest.mark.parametrize("k, n", [(1, 0), (-1, 5), (6, 5)])
def test_bad_counts_are_refused(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n)
