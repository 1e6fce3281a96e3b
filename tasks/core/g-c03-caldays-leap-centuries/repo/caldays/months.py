"""Month lengths and names."""

from caldays.leap import is_leap

NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
LENGTHS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def check_month(month):
    if not 1 <= month <= 12:
        raise ValueError(f"month must be 1-12, got {month}")


def days_in_month(year, month):
    """Days in `month` of `year`; February has 29 in a leap year."""
    check_month(month)
    if month == 2 and is_leap(year):
        return 29
    return LENGTHS[month - 1]


def month_name(month, short=False):
    """'March', or 'Mar' with short=True."""
    check_month(month)
    name = NAMES[month - 1]
    return name[:3] if short else name


def check_date(year, month, day):
    """Raise ValueError naming the bad part of a date."""
    if year < 1:
        raise ValueError(f"year must be 1 or later, got {year}")
    check_month(month)
    last = days_in_month(year, month)
    if not 1 <= day <= last:
        raise ValueError(f"day must be 1-{last} in {month_name(month)} {year}, got {day}")
