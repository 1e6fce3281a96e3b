"""Word counting, independent of files and the command line."""

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z0-9']+")


def count_words(text, min_length=1, ignore_case=False):
    """A Counter of the words in text that have at least min_length characters."""
    counts = Counter()
    for word in _WORD.findall(text):
        word = word.strip("'")
        if len(word) < min_length or not word:
            continue
        counts[word.lower() if ignore_case else word] += 1
    return counts


def top_words(counts, n):
    """The n most frequent (word, count) pairs; ties in alphabetical order."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
