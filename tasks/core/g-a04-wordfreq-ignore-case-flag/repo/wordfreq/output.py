"""Formatting (word, count) rows as aligned text, CSV or JSON."""

import csv
import io
import json

FORMATS = ("text", "csv", "json")


def as_text(rows: list[tuple[str, int]]) -> str:
    """Words left-aligned, counts right-aligned in a second column."""
    if not rows:
        return ""
    width = max(len(word) for word, _ in rows)
    digits = max(len(str(count)) for _, count in rows)
    return "\n".join(f"{word:<{width}}  {count:>{digits}}" for word, count in rows) + "\n"


def as_csv(rows: list[tuple[str, int]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["word", "count"])
    writer.writerows(rows)
    return buffer.getvalue()


def as_json(rows: list[tuple[str, int]]) -> str:
    return json.dumps([{"word": w, "count": c} for w, c in rows], indent=2) + "\n"


def render(rows: list[tuple[str, int]], fmt: str = "text") -> str:
    """Rows in one of FORMATS; an unknown format raises ValueError listing the choices."""
    if fmt == "text":
        return as_text(rows)
    if fmt == "csv":
        return as_csv(rows)
    if fmt == "json":
        return as_json(rows)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
