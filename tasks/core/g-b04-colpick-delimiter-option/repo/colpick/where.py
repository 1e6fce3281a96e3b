"""Row filters: keep only the rows whose columns match conditions like 'city=Oslo'.

Conditions:

- ``col=value``: equal (exact text);
- ``col!=value``: not equal;
- ``col~text``: contains text, ignoring case.
"""

import re

_CONDITION = re.compile(r"^(?P<col>[^=!~]+)(?P<op>!=|=|~)(?P<value>.*)$")


class BadCondition(ValueError):
    pass


def parse_condition(text):
    """'city=Oslo' -> ('city', '=', 'Oslo')."""
    match = _CONDITION.match(text)
    if not match:
        raise BadCondition(f"bad condition {text!r}: use col=value, col!=value or col~text")
    return match["col"].strip(), match["op"], match["value"]


def _test(op, cell, value):
    if op == "=":
        return cell == value
    if op == "!=":
        return cell != value
    return value.lower() in cell.lower()


def filter_rows(rows, conditions):
    """Yield the header, then the data rows that meet every condition (given as text)."""
    rows = iter(rows)
    header = next(rows, None)
    if header is None:
        return
    parsed = []
    for text in conditions:
        col, op, value = parse_condition(text)
        if col not in header:
            raise BadCondition(f"no column {col!r} in condition {text!r}")
        parsed.append((header.index(col), op, value))
    yield header
    for row in rows:
        cells = [row[i] if i < len(row) else "" for i, _, _ in parsed]
        if all(_test(op, cell, value) for cell, (_, op, value) in zip(cells, parsed)):
            yield row
