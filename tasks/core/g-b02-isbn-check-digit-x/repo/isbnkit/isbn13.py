"""ISBN-13: twelve digits and a check digit (weights 1, 3, 1, 3, ...)."""

from isbnkit.clean import strip_separators


def check_digit(first12):
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return str((10 - total % 10) % 10)


def is_valid(isbn):
    digits = strip_separators(isbn)
    if len(digits) != 13 or not digits.isdigit():
        return False
    return check_digit(digits[:12]) == digits[12]
