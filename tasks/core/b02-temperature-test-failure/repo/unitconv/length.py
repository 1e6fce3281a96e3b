"""Lengths: metres, kilometres, miles, feet."""

METRES_PER_MILE = 1609.344
METRES_PER_FOOT = 0.3048


def km_to_miles(km):
    return km * 1000 / METRES_PER_MILE


def miles_to_km(miles):
    return miles * METRES_PER_MILE / 1000


def metres_to_feet(m):
    return m / METRES_PER_FOOT


def feet_to_metres(ft):
    return ft * METRES_PER_FOOT
