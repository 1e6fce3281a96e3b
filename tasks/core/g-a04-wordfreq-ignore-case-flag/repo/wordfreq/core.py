"""Counting words."""

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def count_words(text: str, ignore_case: bool = False, min_length: int = 1) -> Counter:
    words = _WORD.findall(text)
    if ignore_case:
        words = [w.lower() for w in words]
    return Counter(w for w in words if len(w) >= min_length)


def top(counts: Counter, n: int) -> list[tuple[str, int]]:
    """The n most frequent words; ties broken alphabetically so output is stable."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
