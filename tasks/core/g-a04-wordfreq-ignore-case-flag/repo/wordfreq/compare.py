"""Comparing the vocabulary of two texts.

Used to spot what changed between two drafts: words that appear (much) more often in one
text than the other, after scaling both to the same length.
"""

from collections import Counter


def relative(counts: Counter) -> dict[str, float]:
    """Each word's share of all words, so texts of different lengths compare fairly."""
    total = sum(counts.values())
    if total == 0:
        return {}
    return {word: count / total for word, count in counts.items()}


def distinctive(a: Counter, b: Counter, n: int = 5, floor: float = 1e-6) -> list[str]:
    """Up to n words most over-represented in `a` compared to `b`.

    The score is the ratio of relative frequencies; `floor` stands in for words `b` never
    uses. Ties are broken alphabetically so the output is stable.
    """
    rel_a, rel_b = relative(a), relative(b)
    scores = {word: share / max(rel_b.get(word, 0.0), floor) for word, share in rel_a.items()}
    ranked = sorted(scores, key=lambda w: (-scores[w], w))
    return [w for w in ranked if scores[w] > 1.0][:n]


def shared(a: Counter, b: Counter) -> list[str]:
    """Words used in both texts, alphabetically."""
    return sorted(set(a) & set(b))
