"""Selecting the lines of a time window.

Timestamps are ISO strings of the same shape, so comparing them as strings orders them in
time; no date parsing is needed. Lines without a timestamp belong to the line before them
(for example the lines of a stack trace), so they follow that line in or out of the window.
"""

import re

_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})")


def line_time(line: str) -> str | None:
    match = _STAMP.match(line)
    return match.group(1) if match else None


def check_bound(text: str) -> str:
    """A window bound: a full timestamp, or a prefix such as '2024-05-01' or '2024-05-01T12'."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{2}(:\d{2}(:\d{2})?)?)?", text):
        raise ValueError(f"bad time bound {text!r} (expected e.g. 2024-05-01T12:00)")
    return text


def in_window(lines: list[str], start: str | None = None, end: str | None = None) -> list[str]:
    """Lines with start <= time < end (prefix bounds compare on the prefix)."""
    start = check_bound(start) if start else None
    end = check_bound(end) if end else None
    out = []
    keep = False
    for line in lines:
        stamp = line_time(line)
        if stamp is not None:
            keep = ((start is None or stamp[:len(start)] >= start)
                    and (end is None or stamp[:len(end)] < end))
        if keep:
            out.append(line)
    return out
