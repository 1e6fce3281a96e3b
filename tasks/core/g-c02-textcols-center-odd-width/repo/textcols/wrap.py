"""Greedy word wrapping and shortening, without hyphenation."""


def wrap(text, width):
    """Split `text` into lines of at most `width` columns, breaking between words.

    A single word longer than `width` gets a line of its own and is not cut.
    Runs of whitespace count as one space.
    """
    if width < 1:
        raise ValueError("width must be at least 1")
    lines = []
    current = ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def shorten(text, width, placeholder="..."):
    """Cut `text` to at most `width` columns, ending in `placeholder` when cut.

    Cuts at a word boundary when one is available.
    """
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    room = width - len(placeholder)
    if room <= 0:
        return placeholder[:width]
    cut = text[:room]
    if " " in cut and text[room] != " ":
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + placeholder
