"""Checking a catalogue import file: one ISBN per line, optionally followed by a title.

    978-0-306-40615-7  Signal Processing
    0-306-40615-2

Blank lines and lines starting with '#' are skipped. The check reports every bad line
instead of stopping at the first, so the librarian can fix the whole file in one go.
"""

from isbnkit.clean import strip_separators
from isbnkit.extract import kind


def check_lines(text):
    """(problems, isbns): problems are 'line N: ...' messages; isbns the valid ones, cleaned."""
    problems, isbns = [], []
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        raw = line.split()[0]
        token = strip_separators(raw).upper()
        if kind(token) is None:
            problems.append(f"line {lineno}: {raw!r} is not a valid ISBN")
        elif token in isbns:
            problems.append(f"line {lineno}: {token} is listed twice")
        else:
            isbns.append(token)
    return problems, isbns
