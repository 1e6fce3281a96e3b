"""Which items are expired or about to expire."""

from pantry.util.dates import days_until


def expired(inv, today):
    """Items whose expiry date is before today."""
    return [i for i in inv if days_until(today, i.expires) < 0]


def expiring_within(inv, today, days):
    """Items that expire from today up to and including today + days."""
    if days < 0:
        raise ValueError("days must not be negative")
    return [i for i in inv if 0 < days_until(today, i.expires) < days]
