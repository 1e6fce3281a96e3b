"""Revenue reports over charged trips (statement.charge_month's output)."""

from collections import Counter, defaultdict

from tollgate.discounts import is_night
from tollgate.money import fmt
from tollgate.plazas import lookup


def revenue_by_road(charged):
    """{road: cents}, roads in name order."""
    out = defaultdict(int)
    for trip, cents in charged:
        out[lookup(trip.entry).road] += cents
    return dict(sorted(out.items()))


def revenue_by_class(charged):
    out = defaultdict(int)
    for trip, cents in charged:
        out[trip.vehicle_class] += cents
    return dict(sorted(out.items()))


def busiest_plazas(charged, n=5):
    """The n plazas most trips entered or left at, as (name, trips), most first."""
    counts = Counter()
    for trip, _cents in charged:
        counts[lookup(trip.entry).name] += 1
        counts[lookup(trip.exit).name] += 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def night_share(charged):
    """The share of trips entered at night (None without trips)."""
    if not charged:
        return None
    return sum(1 for trip, _ in charged if is_night(trip.hour)) / len(charged)


def report_lines(charged):
    lines = ["revenue by road:"]
    lines += [f"  {road}: {fmt(cents)}" for road, cents in revenue_by_road(charged).items()]
    lines.append("revenue by class:")
    lines += [f"  class {c}: {fmt(cents)}" for c, cents in revenue_by_class(charged).items()]
    lines.append("busiest plazas: " + ", ".join(f"{name} ({n})"
                                                for name, n in busiest_plazas(charged)))
    share = night_share(charged)
    lines.append(f"night trips: {share:.0%}" if share is not None else "night trips: -")
    return lines
