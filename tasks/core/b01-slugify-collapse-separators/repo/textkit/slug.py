"""URL slugs from titles."""

import re
import unicodedata

# Anything that is not a lower-case ASCII letter or digit.
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def _fold_accents(text):
    """Drop combining marks so 'é' becomes 'e'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def _truncate(slug, sep, max_length):
    """Cut the slug to max_length at a separator, never in the middle of a word."""
    if len(slug) <= max_length:
        return slug
    cut = slug[: max_length + 1]
    if sep in cut:
        cut = cut[: cut.rindex(sep)]
    else:
        cut = cut[:max_length]
    return cut.strip(sep)


def slugify(text, sep="-", max_length=None):
    """Turn a title into a URL slug (see README.md for the rules)."""
    if not isinstance(text, str):
        raise TypeError(f"slugify() needs a str, got {type(text).__name__}")
    if not sep:
        raise ValueError("sep must not be empty")
    slug = _fold_accents(text).lower()
    slug = _NON_ALNUM.sub(sep, slug)
    slug = slug.strip(sep)
    if max_length is not None:
        if max_length < 1:
            raise ValueError("max_length must be at least 1")
        slug = _truncate(slug, sep, max_length)
    return slug
