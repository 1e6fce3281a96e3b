"""Shortening text for teasers, meta descriptions and table cells."""

ELLIPSIS = "…"


def truncate(text: str, limit: int, ellipsis: str = ELLIPSIS) -> str:
    """At most `limit` characters, cut at a word boundary when one is near.

    The ellipsis counts towards the limit. Text that already fits is returned unchanged.
    """
    if limit < len(ellipsis) + 1:
        raise ValueError(f"limit must be at least {len(ellipsis) + 1}")
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    room = limit - len(ellipsis)
    cut = text[:room]
    space = cut.rfind(" ")
    # Only back up to a word boundary if that keeps most of the room; otherwise a single
    # long word would shrink the teaser to almost nothing.
    if text[room] != " " and space >= room // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + ellipsis


def first_sentence(text: str) -> str:
    """The text up to and including the first '.', '!' or '?' followed by a space or the end."""
    text = " ".join(text.split())
    for i, ch in enumerate(text):
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1] == " "):
            return text[: i + 1]
    return text


def excerpt(text: str, limit: int = 160) -> str:
    """A meta description: the first sentence if it fits, else the truncated text."""
    sentence = first_sentence(text)
    if len(sentence) <= limit:
        return sentence
    return truncate(text, limit)
