"""Counting values into equal-width bins, and a text bar chart for the console."""

from minstats.errors import StatsError


def bin_edges(low, high, bins):
    """bins + 1 edges from low to high."""
    if bins < 1:
        raise StatsError("bins must be at least 1")
    if high <= low:
        raise StatsError("high must be greater than low")
    width = (high - low) / bins
    return [low + i * width for i in range(bins)] + [high]


def histogram(values, bins=10, low=None, high=None):
    """(edges, counts). Each bin holds edge[i] <= x < edge[i+1]; the last bin also holds high.

    Values outside [low, high] are not counted. low and high default to the data's range.
    """
    data = list(values)
    if not data:
        raise StatsError("histogram() of an empty sequence")
    low = min(data) if low is None else low
    high = max(data) if high is None else high
    if high == low:
        high = low + 1
    edges = bin_edges(low, high, bins)
    counts = [0] * bins
    width = (high - low) / bins
    for x in data:
        if x < low or x > high:
            continue
        index = min(int((x - low) / width), bins - 1)
        counts[index] += 1
    return edges, counts


def text_bars(counts, width=20, char="#"):
    """One bar per count, scaled so the largest count is `width` characters long."""
    top = max(counts, default=0)
    if top == 0:
        return ["" for _ in counts]
    return [char * round(c * width / top) for c in counts]
