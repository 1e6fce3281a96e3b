"""Measures of central tendency."""

from collections import Counter

from minstats.errors import StatsError


def _as_list(values, name):
    data = list(values)
    if not data:
        raise StatsError(f"{name}() of an empty sequence")
    return data


def mean(values):
    """Arithmetic mean."""
    data = _as_list(values, "mean")
    return sum(data) / len(data)


def mode(values):
    """The most common value; the smallest one when several are equally common."""
    data = _as_list(values, "mode")
    counts = Counter(data)
    best = max(counts.values())
    return min(v for v, c in counts.items() if c == best)
