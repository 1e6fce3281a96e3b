"""Chapter and volume labels as printed in the catalogue: 'Chapter XIV', 'Vol. III'.

Labels always use upper-case numerals. parse_label reads a label back; it accepts the
label words in any case ('chapter XIV', 'VOL. III').
"""

from numerals.roman import from_roman, to_roman

PREFIXES = {"chapter": "Chapter", "volume": "Vol.", "part": "Part", "book": "Book"}


def label(kind, n):
    """label('chapter', 14) == 'Chapter XIV'."""
    if kind not in PREFIXES:
        raise ValueError(f"unknown label kind {kind!r}; choose one of {', '.join(PREFIXES)}")
    return f"{PREFIXES[kind]} {to_roman(n)}"


def parse_label(text):
    """'Chapter XIV' -> ('chapter', 14)."""
    words = text.split()
    if len(words) != 2:
        raise ValueError(f"not a label: {text!r}")
    prefix, numeral = words
    for kind, written in PREFIXES.items():
        if prefix.lower() == written.lower():
            return kind, from_roman(numeral)
    raise ValueError(f"not a label: {text!r}")


def table_of_contents(titles, kind="chapter"):
    """Lines 'Chapter I. Title' for a list of titles, numbered from 1."""
    return [f"{label(kind, i)}. {title}" for i, title in enumerate(titles, start=1)]
