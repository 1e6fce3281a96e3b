"""Unit conversions used when comparing vehicles with different odometers."""

from __future__ import annotations

KM_PER_MILE = 1.609344
LITERS_PER_US_GALLON = 3.785411784


def miles_to_km(miles: float) -> float:
    return miles * KM_PER_MILE


def km_to_miles(km: float) -> float:
    return km / KM_PER_MILE


def to_km(distance: float, unit: str) -> float:
    """A distance in kilometres, from the unit an odometer counts in ('km' or 'mi')."""
    if unit == "km":
        return distance
    if unit == "mi":
        return miles_to_km(distance)
    raise ValueError(f"unknown distance unit {unit!r} (use 'km' or 'mi')")


def liters_to_gallons(liters: float) -> float:
    return liters / LITERS_PER_US_GALLON


def kg_to_tonnes(kg: float) -> float:
    return kg / 1000
