"""Parsing values that arrive as text (CSV cells, form fields, settings)."""

from __future__ import annotations

from datetime import date

from .errors import ValidationError

_TRUE = {"1", "true", "yes", "y", "on"}
_FALSE = {"0", "false", "no", "n", "off", ""}


def parse_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValidationError(f"not a yes/no value: {value!r}")


def parse_date(value: object) -> date:
    """A date, or ISO text 'YYYY-MM-DD'."""
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise ValidationError(f"not a date (YYYY-MM-DD): {value!r}") from None


def parse_int(value: object, name: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValidationError(f"{name} must be a whole number, got {value!r}") from None
