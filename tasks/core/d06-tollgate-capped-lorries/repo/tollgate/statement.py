"""Monthly statements: a driver's trips, charged in order, with the running trip count
that the frequent-driver discount needs."""

from dataclasses import dataclass

from tollgate.fare import trip_fare
from tollgate.money import fmt
from tollgate.tariffs import edition_for


@dataclass(frozen=True)
class Trip:
    day: str  # YYYY-MM-DD
    hour: int
    entry: str
    exit: str
    vehicle_class: int = 1
    green: bool = False


def charge_month(trips):
    """(trip, cents) per trip, in date order; trips before it in the same month count."""
    out = []
    for n, trip in enumerate(sorted(trips, key=lambda t: (t.day, t.hour))):
        cents = trip_fare(trip.entry, trip.exit, trip.vehicle_class, hour=trip.hour,
                          trips_this_month=n, green=trip.green,
                          edition=edition_for(trip.day))
        out.append((trip, cents))
    return out


def statement_lines(trips):
    lines = []
    total = 0
    for trip, cents in charge_month(trips):
        total += cents
        lines.append(f"{trip.day} {trip.hour:02d}h {trip.entry} -> {trip.exit}: {fmt(cents)}")
    lines.append(f"total {fmt(total)}")
    return lines
