"""The table of contents text (docs/spec.md, "Output")."""

from mdtoc.anchors import anchors
from mdtoc.parser import headings


def toc(text, max_level=3):
    found = [h for h in headings(text) if h.level <= max_level]
    if not found:
        return ""
    top = min(h.level for h in found)
    lines = []
    for heading, anchor in zip(found, anchors([h.title for h in found])):
        lines.append(f"{'  ' * (heading.level - top)}- [{heading.title}](#{anchor})")
    return "\n".join(lines)
