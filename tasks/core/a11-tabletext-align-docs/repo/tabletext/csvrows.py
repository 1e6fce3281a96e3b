"""Rows from CSV text, with numbers turned back into numbers.

CSV has only strings; tables look better when numeric columns are recognised (they are
right-aligned by default), so cells that look like integers or decimals are converted.
"""

import csv
import io
import re

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?")


def convert(cell: str) -> object:
    """'12' -> 12, '3.5' -> 3.5, '' -> None, anything else stays a string (stripped)."""
    cell = cell.strip()
    if cell == "":
        return None
    if _INT.fullmatch(cell):
        return int(cell)
    if _FLOAT.fullmatch(cell):
        return float(cell)
    return cell


def read_csv(text: str, delimiter: str = ",") -> list[dict]:
    """One dict per data row, keyed by the header; short rows get None for missing cells."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows = [row for row in reader if any(cell.strip() for cell in row)]
    if not rows:
        return []
    header = [name.strip() for name in rows[0]]
    if len(set(header)) != len(header):
        raise ValueError(f"duplicate column names in header: {', '.join(header)}")
    out = []
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) > len(header):
            raise ValueError(f"row {lineno} has {len(row)} cells but the header has {len(header)}")
        cells = [convert(c) for c in row] + [None] * (len(header) - len(row))
        out.append(dict(zip(header, cells)))
    return out
