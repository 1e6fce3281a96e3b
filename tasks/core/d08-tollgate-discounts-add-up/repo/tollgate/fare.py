"""The charge for one trip (docs/tariff-spec.md, "How a trip is charged").

1. Both plazas must be on the same road; the distance is the difference of their km posts.
2. The zone of the trip is the higher zone of the two plazas, except on the roads of
   tariffs.ENTRY_ZONE_ROADS, where it is the entry plaza's zone.
3. The class 1 charge is the distance times the road's rate for that zone, rounded half up
   to the cent, and at least the road's minimum charge.
4. The class factor scales it; then the road's cap (if any) limits it.
5. The largest applicable discount is taken off.
"""

from tollgate import classes, discounts, tariffs
from tollgate.money import round_half_up
from tollgate.plazas import lookup, on_road


class TripError(ValueError):
    pass


def trip_zone(entry, exit_):
    if entry.road in tariffs.ENTRY_ZONE_ROADS:
        return entry.zone
    return max(entry.zone, exit_.zone)


def distance_km(entry, exit_):
    return round(abs(exit_.km - entry.km), 1)


def class1_cents(entry, exit_, edition=None):
    """The charge of a car, before caps and discounts."""
    rate = tariffs.rate(entry.road, trip_zone(entry, exit_), edition)
    cents = round_half_up(distance_km(entry, exit_) * rate)
    return max(cents, tariffs.minimum(entry.road, edition))


def trip_fare(entry, exit_, vehicle_class=1, *, hour=12, trips_this_month=0, green=False,
              edition=None):
    """The charge in cents for a trip between two plazas (codes or names); `edition`: the
    tariff's year (default: the current edition)."""
    a, b = lookup(entry), lookup(exit_)
    if a.road != b.road:
        raise TripError(f"{a.name} ({a.road}) and {b.name} ({b.road}) are on different roads")
    if a.code == b.code:
        raise TripError("entry and exit are the same plaza")
    cents = classes.apply_factor(class1_cents(a, b, edition), vehicle_class)
    cap = tariffs.cap(a.road, edition)
    if cap is not None:
        cents = min(cents, cap)
    percent = discounts.discount_percent(hour, trips_this_month, green, vehicle_class)
    return discounts.apply_discount(cents, percent)


def fare_matrix(road, vehicle_class=1, edition=None):
    """{(entry code, exit code): cents} for every trip on a road, daytime, no discounts."""
    stops = on_road(road)
    return {(a.code, b.code): trip_fare(a.code, b.code, vehicle_class, edition=edition)
            for a in stops for b in stops if a.code != b.code}


def explain(entry, exit_, vehicle_class=1, *, edition=None, **conditions):
    """The steps of the computation, one line each, for statements and support."""
    a, b = lookup(entry), lookup(exit_)
    zone = trip_zone(a, b)
    year = edition or tariffs.CURRENT_EDITION
    percent = discounts.discount_percent(conditions.get("hour", 12),
                                         conditions.get("trips_this_month", 0),
                                         conditions.get("green", False), vehicle_class)
    lines = [
        f"{a.name} ({a.code}, km {a.km}) -> {b.name} ({b.code}, km {b.km}) on {a.road}",
        f"tariff edition {year}",
        f"distance {distance_km(a, b)} km, zone {zone}, "
        f"rate {tariffs.rate(a.road, zone, edition)} c/km",
        f"class 1 charge {class1_cents(a, b, edition)} c "
        f"(minimum {tariffs.minimum(a.road, edition)} c)",
        f"{classes.describe(vehicle_class)}: factor {classes.factor(vehicle_class)}%",
        f"cap {tariffs.cap(a.road, edition)}",
        f"discount {percent}%",
        f"charge {trip_fare(entry, exit_, vehicle_class, edition=edition, **conditions)} c",
    ]
    return lines
