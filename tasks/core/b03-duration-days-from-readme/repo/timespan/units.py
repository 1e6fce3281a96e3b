"""Seconds per unit, largest first (format_duration relies on the order)."""

UNIT_SECONDS = {
    "h": 3600,
    "m": 60,
    "s": 1,
}
