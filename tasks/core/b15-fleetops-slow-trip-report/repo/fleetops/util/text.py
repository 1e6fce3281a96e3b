"""Plain-text helpers for tables and messages."""

from __future__ import annotations


def pad(text: str, width: int, align: str = "left") -> str:
    if align == "right":
        return text.rjust(width)
    if align == "center":
        return text.center(width)
    return text.ljust(width)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def title_of(name: str) -> str:
    """'fuel_log' -> 'Fuel log'."""
    return name.replace("_", " ").capitalize()


def truncate(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(width - 3, 0)] + "..."
