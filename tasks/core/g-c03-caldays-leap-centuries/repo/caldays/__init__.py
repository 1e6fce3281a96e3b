"""caldays: proleptic Gregorian calendar arithmetic on (year, month, day) tuples.

No clocks and no time zones: every function is pure, so schedules can be computed for
any year, past or future.
"""

from caldays.leap import is_leap, year_length
from caldays.months import days_in_month, month_name
from caldays.ordinal import day_of_year, days_between, from_ordinal, to_ordinal
from caldays.weekday import weekday, weekday_name

__all__ = [
    "day_of_year", "days_between", "days_in_month", "from_ordinal", "is_leap",
    "month_name", "to_ordinal", "weekday", "weekday_name", "year_length",
]
