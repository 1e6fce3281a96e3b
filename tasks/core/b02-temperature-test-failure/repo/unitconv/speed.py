"""Speeds: km/h, m/s, knots."""

METRES_PER_NAUTICAL_MILE = 1852.0


def kmh_to_ms(kmh):
    return kmh / 3.6


def ms_to_kmh(ms):
    return ms * 3.6


def knots_to_kmh(knots):
    return knots * METRES_PER_NAUTICAL_MILE / 1000
