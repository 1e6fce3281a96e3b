"""Field checks shared by every model; each raises ValidationError naming the field."""

from __future__ import annotations

from fleetops.errors import ValidationError
from fleetops.util.dates import is_date


def require_id(value: object, prefix: str, where: str) -> None:
    if not isinstance(value, str) or not value.startswith(prefix + "-"):
        raise ValidationError(f"{where} must look like {prefix}-0001, got {value!r}")


def require_text(value: object, where: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{where} must be non-empty text, got {value!r}")


def require_int(value: object, where: str, minimum: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValidationError(f"{where} must be an integer >= {minimum}, got {value!r}")


def require_number(value: object, where: str, minimum: float = 0.0) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        raise ValidationError(f"{where} must be a number >= {minimum}, got {value!r}")


def require_date(value: object, where: str) -> None:
    if not is_date(value):
        raise ValidationError(f"{where} must be an ISO date YYYY-MM-DD, got {value!r}")


def require_bool(value: object, where: str) -> None:
    if not isinstance(value, bool):
        raise ValidationError(f"{where} must be true or false, got {value!r}")


def require_choice(value: object, choices: tuple[str, ...], where: str) -> None:
    if value not in choices:
        raise ValidationError(f"{where} must be one of {', '.join(choices)}, got {value!r}")


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes"):
        return True
    if lowered in ("0", "false", "no", ""):
        return False
    raise ValidationError(f"not a boolean: {text!r} (use true or false)")
