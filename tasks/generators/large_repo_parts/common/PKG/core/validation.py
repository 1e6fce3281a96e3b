"""Field checks shared by every model; each raises ValidationError naming the field."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from .errors import ValidationError

MAX_TEXT = 200


def require_text(value: object, name: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} must be non-empty text")
    if len(value) > MAX_TEXT:
        raise ValidationError(f"{name} is longer than {MAX_TEXT} characters")


def require_non_negative(value: object, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValidationError(f"{name} must be a whole number, got {value!r}")
    if value < 0:
        raise ValidationError(f"{name} cannot be negative, got {value}")


def require_date(value: object, name: str) -> None:
    if not isinstance(value, date):
        raise ValidationError(f"{name} must be a date, got {value!r}")


def require_bool(value: object, name: str) -> None:
    if not isinstance(value, bool):
        raise ValidationError(f"{name} must be true or false, got {value!r}")


def require_choice(value: object, choices: Sequence[str], name: str) -> None:
    if value not in choices:
        raise ValidationError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
