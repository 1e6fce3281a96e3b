"""Rates, minimum charges, caps and zone rules per road (class 1, in cents).

Transcribed from the published tariff, docs/tariff-spec.md, which is the authority. The
tables below are the current edition; the previous one is kept for trips made under it.
"""

from typing import NamedTuple

# cents per km for a class 1 vehicle, per (road, zone)
RATES = {
    ("A1", 1): 8,
    ("A1", 2): 10,
    ("A1", 3): 13,
    ("A1", 4): 15,
    ("A1", 5): 18,
    ("A1", 6): 20,
    ("A2", 1): 6,
    ("A2", 2): 8,
    ("A2", 3): 10,
    ("A2", 4): 13,
    ("A2", 5): 16,
    ("A2", 6): 19,
    ("A3", 1): 8,
    ("A3", 2): 11,
    ("A3", 3): 12,
    ("A3", 4): 15,
    ("A3", 5): 18,
    ("A3", 6): 19,
    ("A4", 1): 10,
    ("A4", 2): 12,
    ("A4", 3): 15,
    ("A4", 4): 16,
    ("A4", 5): 18,
    ("A4", 6): 20,
    ("B1", 1): 7,
    ("B1", 2): 9,
    ("B1", 3): 10,
    ("B1", 4): 13,
    ("B1", 5): 15,
    ("B1", 6): 17,
    ("B2", 1): 9,
    ("B2", 2): 12,
    ("B2", 3): 14,
    ("B2", 4): 16,
    ("B2", 5): 17,
    ("B2", 6): 20,
    ("B3", 1): 8,
    ("B3", 2): 9,
    ("B3", 3): 10,
    ("B3", 4): 11,
    ("B3", 5): 14,
    ("B3", 6): 15,
    ("B4", 1): 11,
    ("B4", 2): 14,
    ("B4", 3): 17,
    ("B4", 4): 20,
    ("B4", 5): 23,
    ("B4", 6): 24,
    ("C1", 1): 9,
    ("C1", 2): 10,
    ("C1", 3): 12,
    ("C1", 4): 14,
    ("C1", 5): 17,
    ("C1", 6): 20,
    ("C2", 1): 10,
    ("C2", 2): 12,
    ("C2", 3): 15,
    ("C2", 4): 16,
    ("C2", 5): 19,
    ("C2", 6): 20,
    ("C3", 1): 11,
    ("C3", 2): 14,
    ("C3", 3): 15,
    ("C3", 4): 18,
    ("C3", 5): 19,
    ("C3", 6): 21,
    ("C4", 1): 8,
    ("C4", 2): 9,
    ("C4", 3): 12,
    ("C4", 4): 15,
    ("C4", 5): 16,
    ("C4", 6): 18,
    ("D1", 1): 11,
    ("D1", 2): 12,
    ("D1", 3): 14,
    ("D1", 4): 17,
    ("D1", 5): 20,
    ("D1", 6): 22,
    ("D2", 1): 9,
    ("D2", 2): 11,
    ("D2", 3): 13,
    ("D2", 4): 15,
    ("D2", 5): 16,
    ("D2", 6): 17,
    ("D3", 1): 10,
    ("D3", 2): 12,
    ("D3", 3): 15,
    ("D3", 4): 16,
    ("D3", 5): 18,
    ("D3", 6): 21,
    ("D4", 1): 8,
    ("D4", 2): 11,
    ("D4", 3): 13,
    ("D4", 4): 16,
    ("D4", 5): 17,
    ("D4", 6): 19,
}

# the least a class 1 trip on the road costs
MINIMUM = {
    "A1": 180,
    "A2": 100,
    "A3": 120,
    "A4": 90,
    "B1": 180,
    "B2": 120,
    "B3": 120,
    "B4": 90,
    "C1": 120,
    "C2": 150,
    "C3": 100,
    "C4": 90,
    "D1": 180,
    "D2": 180,
    "D3": 150,
    "D4": 180,
}

# the most any trip on the road costs, after the class factor; roads not listed have no cap
CAPS = {
    "A1": 1450,
    "A2": 2200,
    "A3": 2200,
    "A4": 2200,
    "B1": 1800,
    "B2": 2600,
    "B3": 1450,
    "B4": 1450,
    "D1": 1800,
    "D3": 2200,
    "D4": 1450,
}

# roads where a trip is charged at its entry plaza's zone (not the higher of the two)
ENTRY_ZONE_ROADS = frozenset({"B3", "C4", "D2"})

CURRENT_EDITION = 2026
EDITION_STARTS = {2025: "2025-01-01", 2026: "2026-01-01"}


class Edition(NamedTuple):
    rates: tuple  # cents per km, zones 1 to 6
    minimum: int
    cap: int | None


# the 2025 edition, for trips made before it ended (re-billing and disputes)
EDITION_2025 = {
    "A1": Edition((8, 8, 12, 15, 17, 18), 170, 1350),
    "A2": Edition((5, 8, 8, 11, 16, 19), 90, 2100),
    "A3": Edition((8, 10, 10, 15, 16, 19), 110, 2100),
    "A4": Edition((10, 12, 14, 15, 18, 19), 80, 2100),
    "B1": Edition((5, 7, 9, 13, 15, 16), 170, 1700),
    "B2": Edition((8, 12, 13, 16, 17, 19), 110, 2500),
    "B3": Edition((7, 9, 8, 10, 12, 14), 110, 1350),
    "B4": Edition((10, 12, 15, 18, 23, 22), 80, 1350),
    "C1": Edition((9, 9, 11, 13, 16, 19), 110, None),
    "C2": Edition((9, 11, 14, 15, 18, 20), 140, None),
    "C3": Edition((10, 13, 14, 17, 19, 20), 90, None),
    "C4": Edition((7, 7, 11, 14, 15, 18), 80, None),
    "D1": Edition((9, 12, 13, 16, 19, 21), 170, 1700),
    "D2": Edition((8, 9, 12, 14, 16, 17), 170, None),
    "D3": Edition((8, 11, 14, 15, 17, 20), 140, 2100),
    "D4": Edition((7, 10, 12, 15, 16, 17), 170, 1350),
}


def edition_for(day):
    """The edition in force on a day ('YYYY-MM-DD')."""
    return max(year for year, start in EDITION_STARTS.items() if start <= day)


def _old(road, edition):
    if edition not in (None, CURRENT_EDITION):
        if edition != 2025:
            raise KeyError(f"no tariff edition {edition}")
        return EDITION_2025[road]
    return None


def rate(road, zone, edition=None):
    old = _old(road, edition)
    if old is not None:
        return old.rates[zone - 1]
    try:
        return RATES[(road, zone)]
    except KeyError:
        raise KeyError(f"no rate for road {road} zone {zone}") from None


def minimum(road, edition=None):
    old = _old(road, edition)
    return old.minimum if old is not None else MINIMUM[road]


def cap(road, edition=None):
    """The road's cap in cents, or None for an uncapped road."""
    old = _old(road, edition)
    return old.cap if old is not None else CAPS.get(road)
