"""Bulleted and numbered lists with hanging indents, for release notes."""

from textcols.wrap import wrap


def indent(lines, prefix="  "):
    """Prefix every non-empty line; empty lines stay empty (no trailing spaces)."""
    return [prefix + line if line else "" for line in lines]


def bullets(items, width=72, marker="-"):
    """Each item wrapped to `width`, its continuation lines aligned under the text."""
    lead = marker + " "
    hang = " " * len(lead)
    lines = []
    for item in items:
        wrapped = wrap(item, max(width - len(lead), 1)) or [""]
        lines.append(lead + wrapped[0])
        lines.extend(hang + rest for rest in wrapped[1:])
    return lines


def numbered(items, width=72, start=1):
    """Like `bullets`, with '1.', '2.', ... markers right-aligned to the widest number."""
    last = start + len(items) - 1
    digits = len(str(last))
    lines = []
    for number, item in enumerate(items, start=start):
        marker = f"{number:>{digits}}."
        lead = marker + " "
        wrapped = wrap(item, max(width - len(lead), 1)) or [""]
        lines.append(lead + wrapped[0])
        lines.extend(" " * len(lead) + rest for rest in wrapped[1:])
    return lines
