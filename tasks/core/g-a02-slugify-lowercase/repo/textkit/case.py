"""Case conversions for identifiers and headings.

The site generator turns front-matter keys into Python identifiers and headings into
title case; these helpers keep those rules in one place.
"""

import re

# Words kept lowercase inside a title unless they start it.
SMALL_WORDS = frozenset({"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on",
                         "or", "the", "to", "via"})

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\s_\-]+")


def split_words(text: str) -> list[str]:
    """'parseHTTPResponse_code' -> ['parse', 'HTTP', 'Response', 'code']."""
    words: list[str] = []
    for chunk in _SEPARATORS.split(text.strip()):
        if chunk:
            words.extend(w for w in _CAMEL_BOUNDARY.split(chunk) if w)
    return words


def snake_case(text: str) -> str:
    """'Page Title' and 'pageTitle' -> 'page_title'."""
    return "_".join(w.lower() for w in split_words(text))


def kebab_case(text: str) -> str:
    """'Page Title' -> 'page-title' (no accent handling; see textkit.slug for URLs)."""
    return "-".join(w.lower() for w in split_words(text))


def camel_case(text: str) -> str:
    """'page title' -> 'pageTitle'."""
    words = [w.lower() for w in split_words(text)]
    if not words:
        return ""
    return words[0] + "".join(w.capitalize() for w in words[1:])


def title_case(text: str) -> str:
    """Headline style: 'the art of war' -> 'The Art of War'.

    Small words stay lowercase except first and last; words that are already all caps
    (acronyms such as 'HTML') are kept as written.
    """
    words = text.split()
    out = []
    for i, word in enumerate(words):
        if word.isupper() and len(word) > 1:
            out.append(word)
        elif 0 < i < len(words) - 1 and word.lower() in SMALL_WORDS:
            out.append(word.lower())
        else:
            out.append(word[:1].upper() + word[1:].lower())
    return " ".join(out)
