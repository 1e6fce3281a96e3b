"""Rows of dicts as a GitHub-flavoured Markdown table.

The plain-text renderer pads cells for a terminal; Markdown renderers align columns
themselves, so here cells are not padded and alignment goes into the delimiter row
(``:--``, ``--:``, ``:-:``).
"""

from .cells import is_numeric_column, to_text

_MARKERS = {"left": ":--", "right": "--:", "center": ":-:"}


def _escape(text: str) -> str:
    # A pipe inside a cell would start a new column.
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(rows: list[dict], columns: list[str] | None = None,
                align: dict[str, str] | None = None) -> str:
    """A Markdown table; numeric columns default to right alignment, others to left."""
    if not rows:
        return ""
    cols = list(columns or rows[0].keys())
    align = align or {}
    markers = []
    for col in cols:
        how = align.get(col) or ("right" if is_numeric_column(rows, col) else "left")
        if how not in _MARKERS:
            raise ValueError(f"column {col!r}: unknown alignment {how!r}")
        markers.append(_MARKERS[how])
    lines = [
        "| " + " | ".join(_escape(c) for c in cols) + " |",
        "| " + " | ".join(markers) + " |",
    ]
    for row in rows:
        lines.append("| " + " | ".join(_escape(to_text(row.get(c))) for c in cols) + " |")
    return "\n".join(lines)
