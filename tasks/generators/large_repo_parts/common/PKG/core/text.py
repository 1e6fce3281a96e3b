"""Text matching for search boxes."""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """Lowercase without accents, for matching: 'Café' -> 'cafe'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def matches_words(haystack: str, needle: str) -> bool:
    """True when every word of needle occurs in haystack (folded)."""
    folded = fold(haystack)
    return all(word in folded for word in fold(needle).split())


def truncate(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"
