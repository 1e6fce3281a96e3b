"""minstats: dependency-free summary statistics."""

from minstats.central import mean, mode
from minstats.errors import StatsError
from minstats.spread import stdev, value_range, variance

__all__ = ["StatsError", "mean", "mode", "stdev", "value_range", "variance"]
