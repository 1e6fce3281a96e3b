"""URL slugs."""

import re
import unicodedata

_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def slugify(text: str, separator: str = "-", max_length: int = 80) -> str:
    """A lowercase ASCII slug: 'Crème Brûlée!' -> 'creme-brulee'."""
    text = _strip_accents(text)
    slug = _NON_WORD.sub(separator, text).strip(separator)
    if len(slug) > max_length:
        slug = slug[:max_length].rstrip(separator)
    return slug
