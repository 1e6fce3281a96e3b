"""ISBN-10: nine digits and a check character (0-9 or X for ten)."""

from isbnkit.clean import strip_separators


def _value(ch):
    if ch == "x":
        return 10
    return int(ch)


def check_character(first9):
    total = sum((10 - i) * int(d) for i, d in enumerate(first9))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)


def is_valid(isbn):
    digits = strip_separators(isbn)
    if len(digits) != 10 or not digits[:9].isdigit():
        return False
    if not (digits[9].isdigit() or digits[9] in "xX"):
        return False
    total = sum((10 - i) * _value(ch) for i, ch in enumerate(digits))
    return total % 11 == 0
