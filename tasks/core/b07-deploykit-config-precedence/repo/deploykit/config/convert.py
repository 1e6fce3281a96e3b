"""Turning text from files and environment variables into typed values."""

from deploykit.errors import ConfigError

_TRUE = {"1", "true", "yes"}
_FALSE = {"0", "false", "no"}


def convert(value, kind, where):
    """value (text) as kind (str, int or bool); ConfigError naming `where` otherwise."""
    if kind is str:
        return value
    if kind is int:
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"{where}: expected an integer, got {value!r}") from None
    if kind is bool:
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    raise TypeError(f"unsupported setting type {kind!r}")
