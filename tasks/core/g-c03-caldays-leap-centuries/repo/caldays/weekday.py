"""Day of the week by Zeller's congruence (no lookup tables, no clock)."""

NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def weekday(year, month, day):
    """0 for Monday up to 6 for Sunday, like datetime.date.weekday."""
    if month < 3:
        month += 12
        year -= 1
    century, rest = divmod(year, 100)
    h = (day + 13 * (month + 1) // 5 + rest + rest // 4 + century // 4 + 5 * century) % 7
    # Zeller counts 0 = Saturday; shift so that 0 = Monday.
    return (h + 5) % 7


def weekday_name(year, month, day, short=False):
    name = NAMES[weekday(year, month, day)]
    return name[:3] if short else name


def is_weekend(year, month, day):
    return weekday(year, month, day) >= 5
