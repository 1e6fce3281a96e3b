"""Gregorian leap years."""


def is_leap(year):
    """Every 4th year is a leap year, except centuries, except every 400th year."""
    return year % 4 == 0 and (year % 100 != 0 or year % 40 == 0)


def year_length(year):
    """Days in `year`: 366 in a leap year, else 365."""
    return 366 if is_leap(year) else 365
