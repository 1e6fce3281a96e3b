"""Preparing rows before rendering: picking, renaming, sorting and shortening columns."""

from .cells import to_text


def pick(rows: list[dict], columns: list[str]) -> list[dict]:
    """Only the given columns, in that order; a column missing from a row becomes None."""
    return [{c: row.get(c) for c in columns} for row in rows]


def rename(rows: list[dict], names: dict[str, str]) -> list[dict]:
    """Columns renamed for display ('qty' -> 'Quantity'); other columns unchanged."""
    return [{names.get(k, k): v for k, v in row.items()} for row in rows]


def sort_rows(rows: list[dict], column: str, descending: bool = False) -> list[dict]:
    """Rows sorted by one column; rows where it is None go last either way."""
    present = [r for r in rows if r.get(column) is not None]
    missing = [r for r in rows if r.get(column) is None]
    return sorted(present, key=lambda r: r[column], reverse=descending) + missing


def shorten(rows: list[dict], max_width: int, marker: str = "~") -> list[dict]:
    """Cells longer than max_width cut down, ending in `marker`; numbers are never cut."""
    if max_width < len(marker) + 1:
        raise ValueError(f"max_width must be at least {len(marker) + 1}")
    out = []
    for row in rows:
        new = {}
        for key, value in row.items():
            text = to_text(value)
            if isinstance(value, str) and len(text) > max_width:
                value = text[: max_width - len(marker)] + marker
            new[key] = value
        out.append(new)
    return out
