"""Guessing the delimiter of a CSV file from its header line.

Exports from different systems use ',', ';', tab or '|'. The guess is the candidate that
splits the header into the most fields, as long as it splits it at all.
"""

CANDIDATES = [",", ";", "\t", "|"]


def guess_delimiter(header_line, candidates=None):
    """The delimiter that splits the header line into the most fields.

    Ties go to the earlier candidate, so a one-column file is read as comma-separated.
    """
    candidates = candidates or CANDIDATES
    line = header_line.rstrip("\r\n")
    best, best_fields = candidates[0], 1
    for delimiter in candidates:
        fields = len(line.split(delimiter))
        if fields > best_fields:
            best, best_fields = delimiter, fields
    return best


def describe(delimiter):
    """A readable name for messages: ',' -> 'comma', '\\t' -> 'tab'."""
    names = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", " ": "space"}
    return names.get(delimiter, repr(delimiter))
