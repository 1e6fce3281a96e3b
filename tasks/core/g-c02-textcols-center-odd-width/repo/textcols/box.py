"""A frame of box-drawing characters around lines of text."""

STYLES = {
    "ascii": ("+", "-", "|"),
    "round": ("o", "-", ":"),
}


def box(lines, style="ascii", padding=1):
    """Frame `lines`; every line is left-aligned and padded to the longest one."""
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; use one of {sorted(STYLES)}")
    corner, horizontal, vertical = STYLES[style]
    inner = max((len(line) for line in lines), default=0)
    pad = " " * padding
    edge = corner + horizontal * (inner + 2 * padding) + corner
    framed = [edge]
    for line in lines:
        framed.append(vertical + pad + line.ljust(inner) + pad + vertical)
    framed.append(edge)
    return framed
