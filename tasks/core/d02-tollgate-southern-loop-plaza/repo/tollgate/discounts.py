"""Discounts on a trip's charge (docs/tariff-spec.md, "Discounts").

Discounts do not add up: when several apply, the largest one is given.
"""

from tollgate.classes import GREEN_CLASSES

NIGHT_PERCENT = 20
FREQUENT_PERCENT = 10
GREEN_PERCENT = 30
FREQUENT_TRIPS = 20  # trips already made this calendar month


def is_night(hour):
    """Night is from 22:00 to 05:59."""
    return hour >= 22 or hour < 6


def applicable(hour, trips_this_month, green, vehicle_class):
    """The discounts a trip qualifies for, as (name, percent) pairs."""
    found = []
    if is_night(hour):
        found.append(("night", NIGHT_PERCENT))
    if trips_this_month >= FREQUENT_TRIPS:
        found.append(("frequent", FREQUENT_PERCENT))
    if green and vehicle_class in GREEN_CLASSES:
        found.append(("green", GREEN_PERCENT))
    return found


def discount_percent(hour, trips_this_month=0, green=False, vehicle_class=1):
    """The percentage taken off a trip's charge."""
    found = applicable(hour, trips_this_month, green, vehicle_class)
    return max((percent for _, percent in found), default=0)


def apply_discount(cents, percent):
    """The charge after the discount, rounded half up to the cent."""
    return cents - (cents * percent + 50) // 100
