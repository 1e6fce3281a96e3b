"""The duration units, largest first (format_duration relies on the order)."""

UNITS = {
    "h": 3600,
    "m": 60,
    "s": 1,
}
