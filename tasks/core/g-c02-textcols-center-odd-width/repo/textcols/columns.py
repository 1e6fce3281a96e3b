"""Rows of cells laid out in aligned columns."""

from textcols.pad import right


def widths(rows):
    """The width of each column: the longest cell in it."""
    result = []
    for row in rows:
        for index, cell in enumerate(row):
            if index == len(result):
                result.append(0)
            result[index] = max(result[index], len(str(cell)))
    return result


def columns(rows, gap=2, numeric_right=True):
    """Lay out `rows` (lists of cells) as aligned text lines.

    Text cells are left-aligned; numbers are right-aligned unless `numeric_right` is off.
    Trailing spaces are stripped from every line.
    """
    if not rows:
        return []
    sizes = widths(rows)
    spacer = " " * gap
    lines = []
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            text = str(cell)
            if numeric_right and isinstance(cell, (int, float)):
                cells.append(right(text, sizes[index]))
            else:
                cells.append(text.ljust(sizes[index]))
        lines.append(spacer.join(cells).rstrip())
    return lines
