"""A totals row for reports: sums of the numeric columns.

Columns that are not numeric (see cells.is_numeric_column) are left empty in the totals row,
except the first column, which carries the label.
"""

from .cells import is_number, is_numeric_column


def column_sum(rows: list[dict], column: str) -> int | float:
    """Sum of a column's numbers; None cells count as 0, other values raise ValueError."""
    total: int | float = 0
    for row in rows:
        value = row.get(column)
        if value is None:
            continue
        if not is_number(value):
            raise ValueError(f"column {column!r} has a non-number: {value!r}")
        total += value
    return total


def with_totals(rows: list[dict], label: str = "total") -> list[dict]:
    """The rows plus one totals row; an empty table stays empty."""
    if not rows:
        return []
    cols = list(rows[0].keys())
    totals: dict = {}
    for i, col in enumerate(cols):
        if is_numeric_column(rows, col):
            totals[col] = column_sum(rows, col)
        else:
            totals[col] = label if i == 0 else None
    return [*rows, totals]
