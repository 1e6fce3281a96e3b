"""Date helpers. Dates are ISO 'YYYY-MM-DD' strings; nothing here reads the clock."""

import datetime as _dt


def parse(day):
    try:
        return _dt.date.fromisoformat(day)
    except (TypeError, ValueError):
        raise ValueError(f"not an ISO date: {day!r}") from None


def days_until(today, day):
    """Whole days from today to day: 0 for today, 1 for tomorrow, -1 for yesterday."""
    return (parse(day) - parse(today)).days


def add_days(day, n):
    return (parse(day) + _dt.timedelta(days=n)).isoformat()
