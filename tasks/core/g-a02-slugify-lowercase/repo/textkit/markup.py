"""Minimal HTML helpers: escaping text and stripping tags from snippets.

These are for short strings written by site authors (titles, summaries), not a general HTML
parser.
"""

import re

_TAG = re.compile(r"<[^<>]*>")
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&nbsp;": " "}
_ENTITY = re.compile("|".join(re.escape(e) for e in _ENTITIES))


def escape(text: str) -> str:
    """Escape the five characters that matter in HTML text and attribute values."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def unescape(text: str) -> str:
    """Undo escape() (and &nbsp;); unknown entities are left as written."""
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], text)


def strip_tags(html: str) -> str:
    """'<p>Hello <b>world</b></p>' -> 'Hello world' (whitespace collapsed)."""
    return " ".join(unescape(_TAG.sub(" ", html)).split())


def reading_time(text: str, words_per_minute: int = 200) -> int:
    """Minutes to read a post, at least 1."""
    if words_per_minute < 1:
        raise ValueError("words_per_minute must be positive")
    words = len(strip_tags(text).split())
    return max(1, -(-words // words_per_minute))
