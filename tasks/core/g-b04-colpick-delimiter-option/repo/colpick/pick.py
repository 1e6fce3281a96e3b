"""Selecting columns from rows (lists of strings) by header name."""


class UnknownColumn(Exception):
    pass


def column_indexes(header, wanted):
    """Positions of the wanted names in the header row, in the wanted order."""
    indexes = []
    for name in wanted:
        try:
            indexes.append(header.index(name))
        except ValueError:
            raise UnknownColumn(
                f"no column {name!r} (columns: {', '.join(header)})"
            ) from None
    return indexes


def pick(rows, wanted):
    """The header row and the data rows, restricted to the wanted columns."""
    rows = iter(rows)
    header = next(rows, None)
    if header is None:
        return
    indexes = column_indexes(header, wanted)
    yield [header[i] for i in indexes]
    for row in rows:
        yield [row[i] if i < len(row) else "" for i in indexes]


def column_values(rows, name, distinct=False):
    """The values of one column (without the header); with distinct, each value once in
    order of first appearance."""
    picked = pick(rows, [name])
    next(picked, None)
    values = [row[0] for row in picked]
    if distinct:
        values = list(dict.fromkeys(values))
    return values
