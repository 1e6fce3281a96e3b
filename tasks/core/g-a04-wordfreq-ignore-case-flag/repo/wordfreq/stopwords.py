"""Stopword lists: words too common to be interesting in a frequency table.

The built-in English list is deliberately short. Projects can keep their own list in a text
file, one word per line, with ``#`` comments.
"""

from collections import Counter
from pathlib import Path

ENGLISH = frozenset("""
a about after all also an and any are as at be because been but by can could did do does
for from had has have he her him his how i if in into is it its just me my no not of on one
or our out she so some than that the their them then there these they this to up us was we
were what when which who will with would you your
""".split())


class StopwordFileError(ValueError):
    """A stopword file that cannot be used; the message names the file and line."""


def load_stopwords(path: Path) -> frozenset[str]:
    """Words from a stopword file, lowercased; blank lines and ``#`` comments are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StopwordFileError(f"{path}: no such stopword file") from None
    words = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if " " in line:
            raise StopwordFileError(f"{path}:{lineno}: one word per line, got {line!r}")
        words.add(line.lower())
    return frozenset(words)


def remove_stopwords(counts: Counter, stopwords: frozenset[str] = ENGLISH) -> Counter:
    """A copy of counts without the stopwords (compared case-insensitively)."""
    return Counter({w: c for w, c in counts.items() if w.lower() not in stopwords})
