"""Finding ISBNs in free text: order emails, scanned title pages, supplier lists.

A candidate is a run of digits, hyphens and spaces (and a final X) of the right length,
optionally preceded by "ISBN", "ISBN-10:" or "ISBN-13:". Only candidates whose check digit
is right are returned.
"""

import re

from isbnkit import isbn10, isbn13
from isbnkit.clean import strip_separators

_CANDIDATE = re.compile(r"(?<![\dXx])(\d[\d -]{8,15}[\dXx])(?![\dXx])")


def find_isbns(text):
    """The valid ISBNs in the text, without separators, in order, duplicates removed."""
    found = []
    for match in _CANDIDATE.finditer(text):
        digits = strip_separators(match.group(1)).upper()
        if len(digits) == 13 and isbn13.is_valid(digits):
            isbn = digits
        elif len(digits) == 10 and digits[:9].isdigit() and digits[9].isdigit() \
                and isbn10.is_valid(digits):
            isbn = digits
        else:
            continue
        if isbn not in found:
            found.append(isbn)
    return found


def kind(isbn):
    """'ISBN-10', 'ISBN-13' or None for something that is neither (after cleaning)."""
    digits = strip_separators(isbn)
    if len(digits) == 13 and isbn13.is_valid(digits):
        return "ISBN-13"
    if len(digits) == 10 and isbn10.is_valid(digits):
        return "ISBN-10"
    return None
