"""Word frequencies."""

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z']+")


def word_counts(text: str) -> Counter:
    return Counter(w.lower() for w in _WORD.findall(text))
