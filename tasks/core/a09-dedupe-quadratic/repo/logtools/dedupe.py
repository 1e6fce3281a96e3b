"""Distinct lines in order of first appearance."""

from collections.abc import Callable, Iterable, Iterator

from .timestamps import strip_timestamp


def _identity(line: str) -> str:
    return line


def unique_lines(lines: Iterable[str], key_fn: Callable[[str], str] = _identity) -> Iterator[str]:
    """Yield each line whose key was not seen before."""
    seen: list[str] = []
    for line in lines:
        key = key_fn(line)
        if key in seen:
            continue
        seen.append(key)
        yield line


def dedupe(lines: Iterable[str], ignore_timestamps: bool = False) -> list[str]:
    key_fn = strip_timestamp if ignore_timestamps else _identity
    return list(unique_lines(lines, key_fn))
