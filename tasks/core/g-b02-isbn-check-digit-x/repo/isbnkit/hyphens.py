"""Writing ISBNs with hyphens.

Real hyphenation needs the registration-group range tables of the International ISBN
Agency. The catalogue only needs the parts of books it already knows, so callers pass the
group and publisher lengths (printed on the copyright page) and we split accordingly.
"""

from isbnkit.clean import strip_separators


def hyphenate13(isbn, group_len, publisher_len):
    """'9780306406157', 1, 3 -> '978-0-306-40615-7'."""
    digits = strip_separators(isbn)
    if len(digits) != 13 or not digits.isdigit():
        raise ValueError(f"not 13 digits: {isbn!r}")
    return _split(digits, [3, group_len, publisher_len], 12)


def hyphenate10(isbn, group_len, publisher_len):
    """'0306406152', 1, 3 -> '0-306-40615-2'."""
    digits = strip_separators(isbn).upper()
    if len(digits) != 10:
        raise ValueError(f"not 10 characters: {isbn!r}")
    return _split(digits, [group_len, publisher_len], 9)


def _split(digits, lengths, check_at):
    if any(n < 1 for n in lengths):
        raise ValueError("group and publisher lengths must be at least 1")
    parts, pos = [], 0
    for n in lengths:
        parts.append(digits[pos:pos + n])
        pos += n
    if pos >= check_at:
        raise ValueError("group and publisher leave no room for the title number")
    parts.append(digits[pos:check_at])
    parts.append(digits[check_at:])
    return "-".join(parts)
