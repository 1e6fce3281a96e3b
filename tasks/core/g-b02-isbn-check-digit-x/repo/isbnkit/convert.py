"""ISBN-10 -> ISBN-13 (prefix 978)."""

from isbnkit import isbn10, isbn13
from isbnkit.clean import strip_separators


def to_isbn13(isbn):
    if not isbn10.is_valid(isbn):
        raise ValueError(f"not a valid ISBN-10: {isbn!r}")
    first12 = "978" + strip_separators(isbn)[:9]
    return first12 + isbn13.check_digit(first12)
