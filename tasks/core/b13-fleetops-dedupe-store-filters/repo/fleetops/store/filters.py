"""Field filters for the base store."""

from __future__ import annotations

from typing import Any


def _matches(record: object, filters: dict[str, Any]) -> bool:
    """True if every filter names a field of the record whose value equals it."""
    for key, wanted in filters.items():
        if not hasattr(record, key):
            raise AttributeError(f"{type(record).__name__} has no field {key!r}")
        if getattr(record, key) != wanted:
            return False
    return True
