"""Measures of spread."""

import math

from minstats.central import mean
from minstats.errors import StatsError


def value_range(values):
    data = list(values)
    if not data:
        raise StatsError("value_range() of an empty sequence")
    return max(data) - min(data)


def variance(values):
    """Sample variance (n - 1 in the denominator)."""
    data = list(values)
    if len(data) < 2:
        raise StatsError("variance() needs at least two values")
    m = mean(data)
    return sum((x - m) ** 2 for x in data) / (len(data) - 1)


def stdev(values):
    return math.sqrt(variance(values))


def mean_absolute_deviation(values):
    """Average distance from the mean; less sensitive to one wild reading than stdev."""
    data = list(values)
    if not data:
        raise StatsError("mean_absolute_deviation() of an empty sequence")
    m = mean(data)
    return sum(abs(x - m) for x in data) / len(data)
