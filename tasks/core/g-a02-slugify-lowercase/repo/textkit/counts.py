"""Word frequencies."""

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z']+")


def word_counts(text: str) -> Counter:
    return Counter(w.lower() for w in _WORD.findall(text))


# Common English words that say nothing about what a page is about.
STOPWORDS = frozenset({"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in",
                       "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "with"})


def top_words(text: str, n: int = 5, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """The n most frequent non-stopwords (ties in alphabetical order), for page keywords."""
    counts = word_counts(text)
    ranked = sorted((w for w in counts if w not in stopwords), key=lambda w: (-counts[w], w))
    return ranked[:n]
