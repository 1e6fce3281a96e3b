"""Padding a string to a fixed number of columns."""


def right(text, width, fill=" "):
    """Right-align `text` in `width` columns."""
    return fill * max(width - len(text), 0) + text


def center(text, width, fill=" "):
    """Center `text` in `width` columns; an odd gap puts the extra column on the right."""
    gap = max(width - len(text), 0)
    left = gap // 2
    return fill * left + text + fill * left
