"""Record ids: PREFIX-000123."""

from __future__ import annotations

import re

from .errors import ValidationError

_ID = re.compile(r"^(?P<prefix>[A-Z]{2,5})-(?P<number>\d{6})$")


def make_id(prefix: str, number: int) -> str:
    if not re.fullmatch(r"[A-Z]{2,5}", prefix):
        raise ValidationError(f"id prefix must be 2-5 capital letters, got {prefix!r}")
    if not 0 < number < 1_000_000:
        raise ValidationError(f"id number out of range: {number}")
    return f"{prefix}-{number:06d}"


def check_id(value: object, prefix: str) -> None:
    if not isinstance(value, str):
        raise ValidationError(f"id must be text, got {type(value).__name__}")
    match = _ID.match(value)
    if not match or match.group("prefix") != prefix:
        raise ValidationError(f"id {value!r} is not of the form {prefix}-NNNNNN")


def id_number(value: str) -> int:
    match = _ID.match(value)
    if not match:
        raise ValidationError(f"not an id: {value!r}")
    return int(match.group("number"))


class IdAllocator:
    """Hands out increasing ids per prefix; deterministic, so tests can predict them."""

    def __init__(self, start: int = 1) -> None:
        self._next: dict[str, int] = {}
        self._start = start

    def next(self, prefix: str) -> str:
        number = self._next.get(prefix, self._start)
        self._next[prefix] = number + 1
        return make_id(prefix, number)

    def seen(self, record_id: str) -> None:
        """Make sure ids loaded from storage are never handed out again."""
        prefix = record_id.split("-", 1)[0]
        number = id_number(record_id)
        self._next[prefix] = max(self._next.get(prefix, self._start), number + 1)
