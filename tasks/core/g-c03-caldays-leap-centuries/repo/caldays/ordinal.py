"""Dates as day numbers: day 1 is 1 January of year 1, like datetime.date.toordinal."""

from caldays.leap import year_length
from caldays.months import check_date, days_in_month


def days_before_year(year):
    """Days in all the years before `year`, counted by the leap-year rule directly."""
    y = year - 1
    return 365 * y + y // 4 - y // 100 + y // 400


def day_of_year(year, month, day):
    """1 for 1 January, up to 365 or 366 for 31 December."""
    check_date(year, month, day)
    return sum(days_in_month(year, m) for m in range(1, month)) + day


def to_ordinal(year, month, day):
    return days_before_year(year) + day_of_year(year, month, day)


def from_ordinal(number):
    """The (year, month, day) of a day number."""
    if number < 1:
        raise ValueError(f"day number must be 1 or more, got {number}")
    year = max((number - 1) // 366, 1)
    while days_before_year(year + 1) < number:
        year += 1
    left = number - days_before_year(year)
    if left > year_length(year):
        raise ValueError(f"day {left} does not exist in {year}")
    month = 1
    while left > days_in_month(year, month):
        left -= days_in_month(year, month)
        month += 1
    return (year, month, left)


def days_between(start, end):
    """Days from `start` to `end` (tuples); negative when `end` is earlier."""
    return to_ordinal(*end) - to_ordinal(*start)
