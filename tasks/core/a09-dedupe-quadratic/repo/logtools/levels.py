"""Counting lines per log level."""

import re
from collections import Counter

_LEVEL = re.compile(r"\b(DEBUG|INFO|WARNING|ERROR|CRITICAL)\b")


def level_counts(lines) -> Counter:
    counts: Counter = Counter()
    for line in lines:
        match = _LEVEL.search(line)
        counts[match.group(1) if match else "OTHER"] += 1
    return counts
