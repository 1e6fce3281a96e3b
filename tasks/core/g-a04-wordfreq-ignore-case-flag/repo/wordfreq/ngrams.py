"""Counting word pairs and longer runs (n-grams) to find common phrases."""

import re
from collections import Counter

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*")
# Sentence ends break phrases: "end. Next" is not a bigram.
_SENTENCE_END = re.compile(r"[.!?;]+")


def sentences(text: str) -> list[list[str]]:
    """The words of each sentence, lowercased."""
    out = []
    for chunk in _SENTENCE_END.split(text):
        words = [w.lower() for w in _TOKEN.findall(chunk)]
        if words:
            out.append(words)
    return out


def ngrams(words: list[str], n: int) -> list[tuple[str, ...]]:
    """Consecutive runs of n words: ngrams(['a', 'b', 'c'], 2) -> [('a', 'b'), ('b', 'c')]."""
    if n < 1:
        raise ValueError("n must be at least 1")
    return [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]


def count_ngrams(text: str, n: int = 2) -> Counter:
    """How often each n-word phrase occurs, never spanning a sentence end."""
    counts: Counter = Counter()
    for words in sentences(text):
        counts.update(" ".join(gram) for gram in ngrams(words, n))
    return counts
