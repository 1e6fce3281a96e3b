"""ISBN-13 -> ISBN-10, for old catalogue systems that only store ten characters.

Only ISBN-13s with the 978 prefix have an ISBN-10; 979 numbers were never issued as ISBN-10.
"""

from isbnkit import isbn10, isbn13
from isbnkit.clean import strip_separators


def has_isbn10(isbn):
    """Whether a valid ISBN-13 can be written as an ISBN-10 (978 prefix)."""
    return isbn13.is_valid(isbn) and strip_separators(isbn).startswith("978")


def to_isbn10(isbn):
    """'978-0-306-40615-7' -> '0306406152'."""
    if not isbn13.is_valid(isbn):
        raise ValueError(f"not a valid ISBN-13: {isbn!r}")
    digits = strip_separators(isbn)
    if not digits.startswith("978"):
        raise ValueError(f"{isbn!r} has no ISBN-10 form (only 978 numbers do)")
    first9 = digits[3:12]
    return first9 + isbn10.check_character(first9)
