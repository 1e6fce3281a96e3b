"""Rescaling a series: z-scores and min-max normalisation, and z-score outliers."""

from minstats.central import mean
from minstats.errors import StatsError
from minstats.spread import stdev


def zscores(values):
    """(x - mean) / stdev for every value; needs two or more values that are not all equal."""
    data = list(values)
    sd = stdev(data)
    if sd == 0:
        raise StatsError("zscores() of values that are all equal")
    m = mean(data)
    return [(x - m) / sd for x in data]


def normalize(values, low=0.0, high=1.0):
    """Values mapped linearly so the smallest becomes `low` and the largest `high`."""
    data = list(values)
    if not data:
        raise StatsError("normalize() of an empty sequence")
    if high <= low:
        raise StatsError("high must be greater than low")
    lo, hi = min(data), max(data)
    if lo == hi:
        raise StatsError("normalize() of values that are all equal")
    return [low + (x - lo) * (high - low) / (hi - lo) for x in data]


def outliers(values, threshold=3.0):
    """Indexes of values more than `threshold` standard deviations from the mean."""
    if threshold <= 0:
        raise StatsError("threshold must be positive")
    return [i for i, z in enumerate(zscores(values)) if abs(z) > threshold]
