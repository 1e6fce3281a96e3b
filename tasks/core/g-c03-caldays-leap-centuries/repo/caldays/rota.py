"""Shift rotas: repeating dates from a start date, skipping weekends when asked."""

from caldays.ordinal import from_ordinal, to_ordinal
from caldays.weekday import is_weekend, weekday


def add_days(date, count):
    """The date `count` days after `date` (before it when negative)."""
    return from_ordinal(to_ordinal(*date) + count)


def every(start, step, count, skip_weekends=False):
    """`count` dates from `start`, `step` days apart.

    With skip_weekends, a date that falls on Saturday or Sunday moves to the next Monday;
    the following dates are still counted from the original schedule.
    """
    if step < 1 or count < 0:
        raise ValueError("step must be at least 1 and count not negative")
    dates = []
    for index in range(count):
        date = add_days(start, index * step)
        if skip_weekends:
            while is_weekend(*date):
                date = add_days(date, 1)
        dates.append(date)
    return dates


def next_weekday(date, target):
    """The first date on or after `date` whose weekday is `target` (0 = Monday)."""
    if not 0 <= target <= 6:
        raise ValueError(f"target must be 0-6, got {target}")
    return add_days(date, (target - weekday(*date)) % 7)


def assign(people, dates):
    """Pair each date with a person, round robin, in the given order."""
    if not people:
        raise ValueError("at least one person is needed")
    return [(date, people[index % len(people)]) for index, date in enumerate(dates)]
