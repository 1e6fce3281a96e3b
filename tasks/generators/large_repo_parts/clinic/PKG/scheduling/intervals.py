"""Half-open time intervals [start, end) in minutes."""

from __future__ import annotations

from collections.abc import Iterable

Interval = tuple[int, int]


def overlaps(a: Interval, b: Interval) -> bool:
    """True when the intervals share at least one minute; touching ends do not overlap."""
    return a[0] < b[1] and b[0] < a[1]


def contains(outer: Interval, inner: Interval) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted, with overlapping or touching intervals joined."""
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def subtract(base: Interval, taken: Iterable[Interval]) -> list[Interval]:
    """The parts of base not covered by any taken interval."""
    free: list[Interval] = []
    cursor = base[0]
    for start, end in merge(taken):
        if end <= cursor or start >= base[1]:
            continue
        if start > cursor:
            free.append((cursor, min(start, base[1])))
        cursor = max(cursor, end)
    if cursor < base[1]:
        free.append((cursor, base[1]))
    return free
