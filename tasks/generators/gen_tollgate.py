# ruff: noqa: E501 - generated-code templates read better unwrapped
"""Write the `tollgate` tasks of `core` (d01-d08): bugs whose fix needs evidence from several
large files.

tollgate bills trips on a network of toll roads. The facts a fare depends on are spread
over large files, as in a real tariff system: the plazas (km post, zone, road) in
`tollgate/plazas.py` (~400 lines), the rates, minimum charges, caps and road rules in
`tollgate/tariffs.py`, the published tariff in `docs/tariff-spec.md` (~800 lines, one section
per road), and the computation in `fare.py`, `classes.py` and `discounts.py`. Each task's
issue reports a wrong fare the way a driver or the billing team would (the plazas, the
vehicle, the amount charged and the amount the published tariff gives); finding the defect
means looking the plazas up, reading the road's section of the tariff and the rules, and
comparing them with the tables and the code. A file read in one piece is cut to its head
and tail (the agent's observation limit), so the agent has to search and read windows.

Each task gets the correct repository with one defect put back in by exact string
replacement (the oracle undoes it); the expected amounts in the issues and the hidden tests
are computed here from the correct code. Deterministic. Usage:
    python tasks/generators/gen_tollgate.py [TASKS_CORE_DIR]   (default: tasks/core)
It rewrites tasks/core/d0*-tollgate-*/ entirely (task.yaml, oracle.yaml, repo/, hidden_tests/).
"""

from __future__ import annotations

import importlib
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROADS = (
    ("A1", "Northern Trunk"), ("A2", "Coast Road"), ("A3", "Valley Line"), ("A4", "Ridgeway"),
    ("B1", "Harbour Link"), ("B2", "Forest Road"), ("B3", "Lakeside"), ("B4", "Moor Crossing"),
    ("C1", "Eastern Bypass"), ("C2", "Quarry Route"), ("C3", "Airport Spur"), ("C4", "Old Post Road"),
    ("D1", "Southern Loop"), ("D2", "Mountain Pass"), ("D3", "Estuary Bridge"), ("D4", "Canal Way"),
)
PLAZAS_PER_ROAD = 24
ZONES = 6
FIRST = ("Alder", "Birch", "Cedar", "Dun", "Elm", "Fern", "Gorse", "Hazel", "Ivy", "Juniper",
         "Kestrel", "Larch", "Maple", "Nettle", "Oak", "Pine", "Quill", "Rowan", "Sorrel",
         "Thorn", "Umber", "Vetch", "Willow", "Yarrow")
SECOND = ("Cross", "Gate", "Point", "Flats", "Bridge", "Hill", "Lane", "Mills", "End", "Green",
          "Hollow", "Ford", "Heath", "Wharf", "Row", "Fields", "Moor", "Bank")
CLASS_NAMES = {1: "car", 2: "van or car with trailer", 3: "two-axle lorry",
               4: "articulated lorry", 5: "oversize load", 6: "motorcycle"}
CLASS_FACTORS = {1: 100, 2: 150, 3: 200, 4: 250, 5: 400, 6: 50}
# roads where a trip's zone is the entry plaza's zone, not the higher of the two
ENTRY_ZONE_ROADS = ("B3", "C4", "D2")


@dataclass(frozen=True)
class Plaza:
    code: str
    name: str
    road: str
    km: float
    zone: int


def network() -> tuple[list[Plaza], dict, dict, dict]:
    """Plazas, rates per (road, zone), minimum charge and cap per road (None: no cap): the
    current (2026) edition of the tariff."""
    rng = random.Random(2026)
    names = [f"{a} {b}" for b in SECOND for a in FIRST]
    rng.shuffle(names)
    plazas: list[Plaza] = []
    rates: dict[tuple[str, int], int] = {}
    minimum: dict[str, int] = {}
    caps: dict[str, int | None] = {}
    n = 0
    for road, _title in ROADS:
        km = 0.0
        for i in range(PLAZAS_PER_ROAD):
            zone = 1 + i * ZONES // PLAZAS_PER_ROAD
            plazas.append(Plaza(f"{road}-{i + 1:02d}", names[n], road, round(km, 1), zone))
            n += 1
            km += rng.choice((2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 7.5, 8.0))
        rate = rng.randint(6, 11)
        for zone in range(1, ZONES + 1):
            rates[(road, zone)] = rate
            rate += rng.randint(1, 3)
        minimum[road] = rng.choice((90, 100, 120, 150, 180, 200))
        caps[road] = rng.choice((None, None, 1450, 1800, 2200, 2600))
    return plazas, rates, minimum, caps


def edition_2025(rates: dict, minimum: dict, caps: dict) -> dict[str, tuple]:
    """The previous edition per road: (rates of zones 1-6, minimum, cap), a little lower."""
    rng = random.Random(2025)
    old = {}
    for road, _title in ROADS:
        old_rates = tuple(max(5, rates[(road, z)] - rng.choice((0, 1, 1, 2)))
                          for z in range(1, ZONES + 1))
        cap = caps[road]
        old[road] = (old_rates, minimum[road] - 10, cap - 100 if cap else None)
    return old


# -- the correct package ---------------------------------------------------------------------

MONEY = '''"""Amounts in cents: rounding and formatting."""

from decimal import ROUND_HALF_UP, Decimal


def round_half_up(value):
    """The nearest whole cent; halves round away from zero (as the tariff says)."""
    return int(Decimal(str(value)).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def fmt(cents):
    """12345 -> '123.45'."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def parse(text):
    """'123.45' -> 12345; '7' -> 700."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    whole, _, frac = text.lstrip("+-").partition(".")
    return sign * (int(whole or "0") * 100 + int((frac + "00")[:2]))
'''

CLASSES = '''"""Vehicle classes and their factors (percent of the class 1 charge).

The published tariff (docs/tariff-spec.md, "Vehicle classes") is the authority.
"""

CLASS_NAMES = {
%(names)s
}

CLASS_FACTORS = {
%(factors)s
}

# classes that may register as low-emission vehicles (the green discount)
GREEN_CLASSES = frozenset({1, 2, 6})


def factor(vehicle_class):
    """The class's factor in percent; ValueError for an unknown class."""
    try:
        return CLASS_FACTORS[vehicle_class]
    except KeyError:
        raise ValueError(f"unknown vehicle class {vehicle_class!r} (1-6)") from None


def apply_factor(cents, vehicle_class):
    """A class 1 charge scaled to the class, rounded half up to the cent."""
    return (cents * factor(vehicle_class) + 50) // 100


def describe(vehicle_class):
    return f"class {vehicle_class} ({CLASS_NAMES[vehicle_class]})"
'''

DISCOUNTS = '''"""Discounts on a trip's charge (docs/tariff-spec.md, "Discounts").

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
'''

FARE = '''"""The charge for one trip (docs/tariff-spec.md, "How a trip is charged").

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
'''

STATEMENT = '''"""Monthly statements: a driver's trips, charged in order, with the running trip count
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
'''

CLI = '''"""`python -m tollgate fare ENTRY EXIT [--class N] [--hour H]`: a trip's charge."""

import argparse
import sys

from tollgate.fare import TripError, explain, trip_fare
from tollgate.money import fmt


def main(argv=None):
    p = argparse.ArgumentParser(prog="tollgate")
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fare", help="the charge of one trip")
    f.add_argument("entry")
    f.add_argument("exit")
    f.add_argument("--class", dest="vehicle_class", type=int, default=1)
    f.add_argument("--hour", type=int, default=12)
    f.add_argument("--green", action="store_true")
    f.add_argument("--explain", action="store_true")
    args = p.parse_args(argv)
    try:
        cents = trip_fare(args.entry, args.exit, args.vehicle_class, hour=args.hour,
                          green=args.green)
    except (TripError, KeyError, ValueError) as exc:
        print(f"tollgate: {exc}", file=sys.stderr)
        return 2
    if args.explain:
        print("\\n".join(explain(args.entry, args.exit, args.vehicle_class, hour=args.hour,
                                 green=args.green)))
    print(fmt(cents))
    return 0
'''

MAIN = '''import sys

from tollgate.cli import main

sys.exit(main())
'''


def plazas_py(plazas: list[Plaza]) -> str:
    rows = "\n".join(f'    "{p.code}": Plaza("{p.code}", "{p.name}", "{p.road}", {p.km}, {p.zone}),'
                     for p in plazas)
    return f'''"""Every toll plaza of the network: code, name, road, km post and zone.

Copied from the operator's register; docs/tariff-spec.md lists the same plazas per road.
"""

from typing import NamedTuple


class Plaza(NamedTuple):
    code: str
    name: str
    road: str
    km: float
    zone: int


PLAZAS = {{
{rows}
}}

_BY_NAME = {{p.name.lower(): p for p in PLAZAS.values()}}


def lookup(key):
    """A plaza by code ('C3-07') or by name (any case); KeyError names what was asked."""
    if key in PLAZAS:
        return PLAZAS[key]
    try:
        return _BY_NAME[key.strip().lower()]
    except KeyError:
        raise KeyError(f"no plaza {{key!r}}") from None


def on_road(road):
    """The plazas of one road in km order."""
    return sorted((p for p in PLAZAS.values() if p.road == road), key=lambda p: p.km)
'''


def tariffs_py(rates: dict, minimum: dict, caps: dict) -> str:
    old = edition_2025(rates, minimum, caps)
    old_rows = "\n".join(f'    "{r}": Edition({o[0]}, {o[1]}, {o[2]}),' for r, o in old.items())
    rate_rows = "\n".join(f'    ("{r}", {z}): {c},' for (r, z), c in rates.items())
    min_rows = "\n".join(f'    "{r}": {c},' for r, c in minimum.items())
    cap_rows = "\n".join(f'    "{r}": {c},' for r, c in caps.items() if c is not None)
    entry = ", ".join(f'"{r}"' for r in ENTRY_ZONE_ROADS)
    return f'''"""Rates, minimum charges, caps and zone rules per road (class 1, in cents).

Transcribed from the published tariff, docs/tariff-spec.md, which is the authority. The
tables below are the current edition; the previous one is kept for trips made under it.
"""

from typing import NamedTuple

# cents per km for a class 1 vehicle, per (road, zone)
RATES = {{
{rate_rows}
}}

# the least a class 1 trip on the road costs
MINIMUM = {{
{min_rows}
}}

# the most any trip on the road costs, after the class factor; roads not listed have no cap
CAPS = {{
{cap_rows}
}}

# roads where a trip is charged at its entry plaza's zone (not the higher of the two)
ENTRY_ZONE_ROADS = frozenset({{{entry}}})

CURRENT_EDITION = 2026
EDITION_STARTS = {{2025: "2025-01-01", 2026: "2026-01-01"}}


class Edition(NamedTuple):
    rates: tuple  # cents per km, zones 1 to 6
    minimum: int
    cap: int | None


# the 2025 edition, for trips made before it ended (re-billing and disputes)
EDITION_2025 = {{
{old_rows}
}}


def edition_for(day):
    """The edition in force on a day ('YYYY-MM-DD')."""
    return max(year for year, start in EDITION_STARTS.items() if start <= day)


def _old(road, edition):
    if edition not in (None, CURRENT_EDITION):
        if edition != 2025:
            raise KeyError(f"no tariff edition {{edition}}")
        return EDITION_2025[road]
    return None


def rate(road, zone, edition=None):
    old = _old(road, edition)
    if old is not None:
        return old.rates[zone - 1]
    try:
        return RATES[(road, zone)]
    except KeyError:
        raise KeyError(f"no rate for road {{road}} zone {{zone}}") from None


def minimum(road, edition=None):
    old = _old(road, edition)
    return old.minimum if old is not None else MINIMUM[road]


def cap(road, edition=None):
    """The road's cap in cents, or None for an uncapped road."""
    old = _old(road, edition)
    return old.cap if old is not None else CAPS.get(road)
'''


def spec_md(plazas: list[Plaza], rates: dict, minimum: dict, caps: dict) -> str:
    out = ["# Tariff of the tollgate road network", "",
           "Published tariff, edition 2026. Amounts are in cents unless marked otherwise; "
           "billing software must follow this document.", "",
           "## How a trip is charged", "",
           "1. A trip enters the network at one plaza and leaves it at another plaza of the "
           "same road. Its distance is the difference between the two plazas' km posts.",
           "2. The zone of a trip is the higher of the two plazas' zones. Roads marked "
           "\"zone rule: entry\" in their section are charged at the zone of the entry plaza "
           "instead.",
           "3. The class 1 charge is the distance times the road's rate for that zone, rounded "
           "half up to the cent. It is never less than the road's minimum charge.",
           "4. The class factor (below) scales the class 1 charge (rounded half up to the "
           "cent). The road's cap, where the road has one, limits the result: no trip on a "
           "capped road costs more than its cap, whatever the vehicle.",
           "5. Discounts (below) are taken off last.", "",
           "## Editions", "",
           "This edition applies to trips made from 1 January 2026. Trips made before are "
           "charged by the 2025 edition (appendix at the end), whose rates, minimum charges "
           "and caps were lower; its rules, classes and discounts were the same.", "",
           "## Vehicle classes", "",
           "| class | vehicles | factor |", "|---|---|---|"]
    out += [f"| {c} | {CLASS_NAMES[c]} | {CLASS_FACTORS[c] / 100:.2f} x |" for c in CLASS_NAMES]
    out += ["", "## Discounts", "",
            "- Night: trips that enter between 22:00 and 05:59 get 20% off.",
            "- Frequent drivers: from the 21st trip of a calendar month (20 trips already "
            "made), 10% off.",
            "- Green: registered low-emission vehicles of classes 1, 2 and 6 get 30% off.",
            "",
            "Discounts are not added together: when a trip qualifies for several, the largest "
            "one applies. A discount is rounded half up to the cent.", ""]
    for road, title in ROADS:
        out += [f"## Road {road}: {title}", ""]
        rule = "entry" if road in ENTRY_ZONE_ROADS else "higher zone"
        cap = caps[road]
        out += [f"- zone rule: {rule}",
                f"- minimum charge: {minimum[road]} cents per trip",
                f"- cap: {f'{cap} cents per trip' if cap else 'none'}", "",
                "| zone | cents per km (class 1) |", "|---|---|"]
        out += [f"| {z} | {rates[(road, z)]} |" for z in range(1, ZONES + 1)]
        out += ["", "| plaza | name | km post | zone |", "|---|---|---|---|"]
        out += [f"| {p.code} | {p.name} | {p.km} | {p.zone} |" for p in plazas if p.road == road]
        out.append("")
    old = edition_2025(rates, minimum, caps)
    out += ["## Appendix: the 2025 edition", "",
            "For trips made from 1 January 2025 to 31 December 2025.", "",
            "| road | cents per km, zones 1-6 | minimum | cap |", "|---|---|---|---|"]
    out += [f"| {r} | {' / '.join(map(str, o[0]))} | {o[1]} | {o[2] or 'none'} |"
            for r, o in old.items()]
    out.append("")
    return "\n".join(out)


README = '''# tollgate

Billing for the tollgate road network: plazas, tariffs, vehicle classes, discounts and
monthly statements.

    python -m tollgate fare "Alder Cross" "Birch Gate" --class 2 --hour 23 --explain

- `tollgate/plazas.py`: every plaza (code, name, road, km post, zone); `lookup` by code or name
- `tollgate/tariffs.py`: rates per road and zone, minimum charges, caps, zone rules
- `tollgate/classes.py`, `tollgate/discounts.py`: vehicle class factors, discounts
- `tollgate/fare.py`: the charge of one trip; `explain` shows the steps
- `tollgate/statement.py`: a month's trips charged in order
- `docs/tariff-spec.md`: the published tariff, the authority for every number above

Run the tests with `python -m unittest discover -s tests -t . -q`.
'''


def visible_tests(plazas: list[Plaza], fare) -> dict[str, str]:
    """Tests that pass with every task's defect (they avoid what the defects touch)."""
    a1 = [p for p in plazas if p.road == "A1"]
    cents = fare.trip_fare(a1[0].code, a1[3].code)
    return {
        "tests/__init__.py": "",
        "tests/test_money.py": '''import unittest

from tollgate.money import fmt, parse, round_half_up


class TestMoney(unittest.TestCase):
    def test_round_half_up(self):
        self.assertEqual(round_half_up(2.5), 3)
        self.assertEqual(round_half_up(2.49), 2)

    def test_fmt_and_parse(self):
        self.assertEqual(fmt(12345), "123.45")
        self.assertEqual(fmt(-5), "-0.05")
        self.assertEqual(parse("7"), 700)
        self.assertEqual(parse("1.5"), 150)
''',
        "tests/test_plazas.py": f'''import unittest

from tollgate.plazas import PLAZAS, lookup, on_road


class TestPlazas(unittest.TestCase):
    def test_lookup_by_code_and_name(self):
        self.assertEqual(lookup("{a1[0].code}").name, "{a1[0].name}")
        self.assertEqual(lookup("{a1[0].name.upper()}").code, "{a1[0].code}")
        with self.assertRaises(KeyError):
            lookup("Nowhere")

    def test_roads_in_km_order(self):
        kms = [p.km for p in on_road("A1")]
        self.assertEqual(kms, sorted(kms))
        self.assertEqual(len(PLAZAS), {len(plazas)})
''',
        "tests/test_register.py": '''import unittest

from tollgate.plazas import Plaza
from tollgate.register import check_register, from_csv, to_csv

SAMPLE = [Plaza("X1-01", "Alpha", "X1", 0.0, 1), Plaza("X1-02", "Beta", "X1", 4.5, 1),
          Plaza("X1-03", "Gamma", "X1", 9.0, 2)]


class TestRegister(unittest.TestCase):
    def test_csv_round_trip(self):
        self.assertEqual(from_csv(to_csv(SAMPLE)), SAMPLE)

    def test_bad_row_names_its_line(self):
        with self.assertRaisesRegex(ValueError, "line 2"):
            from_csv("code,name,road,km,zone\\nX1-01,Alpha,X1,zero,1\\n")

    def test_check_register(self):
        self.assertEqual(check_register(SAMPLE), [])
        bad = SAMPLE[:2] + [Plaza("X1-03", "Gamma", "X1", 2.0, 1)]
        self.assertEqual(len(check_register(bad)), 1)
''',
        "tests/test_statement.py": f'''import unittest

from tollgate.statement import Trip, charge_month, statement_lines
from tollgate.tariffs import edition_for


class TestStatement(unittest.TestCase):
    def test_editions_by_day(self):
        self.assertEqual(edition_for("2025-12-31"), 2025)
        self.assertEqual(edition_for("2026-01-01"), 2026)

    def test_trips_in_date_order_with_a_total(self):
        trips = [Trip("2026-01-05", 9, "{a1[0].code}", "{a1[3].code}"),
                 Trip("2026-01-02", 9, "{a1[0].code}", "{a1[3].code}")]
        lines = statement_lines(trips)
        self.assertTrue(lines[0].startswith("2026-01-02"))
        self.assertEqual(lines[-1], "total {money(2 * cents)}")

    def test_a_2025_trip_uses_the_2025_edition(self):
        (_, old), (_, new) = charge_month([Trip("2025-12-31", 9, "{a1[0].code}", "{a1[5].code}"),
                                           Trip("2026-01-01", 9, "{a1[0].code}", "{a1[5].code}")])
        self.assertLessEqual(old, new)
''',
        "tests/test_fare.py": f'''import unittest

from tollgate.fare import TripError, trip_fare


class TestFare(unittest.TestCase):
    def test_a_car_trip_on_a1(self):
        self.assertEqual(trip_fare("{a1[0].code}", "{a1[3].code}"), {cents})

    def test_direction_does_not_matter_on_a1(self):
        self.assertEqual(trip_fare("{a1[3].name}", "{a1[0].name}"), {cents})

    def test_different_roads_are_refused(self):
        with self.assertRaises(TripError):
            trip_fare("A1-01", "B1-01")
''',
    }


Case = tuple  # (entry, exit, vehicle class, {hour, trips_this_month, green})


@dataclass(frozen=True)
class Defect:
    """One task: its defect (exact replacements in the correct repository), the issue (a
    format string over the amounts of `cases[0]`: {charged} and {expected}), the hidden
    test cases (fail_to_pass: the defect changes them; pass_to_pass: it must not), and
    what its oracle searches and reads before the fix."""

    task_id: str
    tier: str
    title: str
    tags: tuple[str, ...]
    replacements: tuple[tuple[str, str, str], ...]  # (path, correct text, defective text)
    issue: str
    f2p: tuple[Case, ...]
    p2p: tuple[Case, ...]
    road: str  # the road whose tariff section the oracle reads
    names: tuple[str, ...]  # the plazas the issue names (the oracle greps them)
    reads: tuple[tuple[str, str], ...] = ()  # extra (path, text starting a window) to read


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def _load(repo: Path):
    sys.path.insert(0, str(repo))
    try:
        for name in [m for m in sys.modules if m == "tollgate" or m.startswith("tollgate.")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        return importlib.import_module("tollgate.fare")
    finally:
        sys.path.remove(str(repo))


def write_repo(repo: Path, plazas, rates, minimum, caps) -> None:
    files = {
        "README.md": README,
        "tollgate/__init__.py": '"""tollgate: billing for a toll road network."""\n',
        "tollgate/__main__.py": MAIN,
        "tollgate/money.py": MONEY,
        "tollgate/classes.py": CLASSES % {
            "names": "\n".join(f'    {c}: "{n}",' for c, n in CLASS_NAMES.items()),
            "factors": "\n".join(f"    {c}: {f}," for c, f in CLASS_FACTORS.items())},
        "tollgate/discounts.py": DISCOUNTS,
        "tollgate/fare.py": FARE,
        "tollgate/statement.py": STATEMENT,
        "tollgate/cli.py": CLI,
        "tollgate/reports.py": REPORTS,
        "tollgate/register.py": REGISTER,
        "tollgate/plazas.py": plazas_py(plazas),
        "tollgate/tariffs.py": tariffs_py(rates, minimum, caps),
        "docs/tariff-spec.md": spec_md(plazas, rates, minimum, caps),
    }
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _road(plazas: list[Plaza], road: str) -> list[Plaza]:
    return [p for p in plazas if p.road == road]


REPORTS = '''"""Revenue reports over charged trips (statement.charge_month's output)."""

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
'''

REGISTER = '''"""The plaza register as CSV (the operator's exchange format), and its consistency
checks."""

import csv
import io

from tollgate.plazas import Plaza

FIELDS = ("code", "name", "road", "km", "zone")


def to_csv(plazas):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\\n")
    w.writerow(FIELDS)
    for p in plazas:
        w.writerow([p.code, p.name, p.road, f"{p.km:.1f}", p.zone])
    return buf.getvalue()


def from_csv(text):
    """Plazas from CSV; ValueError names the line of a bad row."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != FIELDS:
        raise ValueError(f"line 1: the header must be {','.join(FIELDS)}")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(FIELDS):
            raise ValueError(f"line {n}: {len(row)} fields, expected {len(FIELDS)}")
        code, name, road, km, zone = row
        try:
            out.append(Plaza(code, name, road, float(km), int(zone)))
        except ValueError:
            raise ValueError(f"line {n}: km and zone must be numbers") from None
    return out


def check_register(plazas):
    """Problems of a register: codes not ROAD-NN, zones outside 1-6, and along each road
    km posts that do not increase or zones that go down."""
    problems = []
    by_road = {}
    for p in plazas:
        if not p.code.startswith(p.road + "-"):
            problems.append(f"{p.code}: code does not start with its road {p.road}")
        if not 1 <= p.zone <= 6:
            problems.append(f"{p.code}: zone {p.zone} outside 1-6")
        by_road.setdefault(p.road, []).append(p)
    for road, stops in sorted(by_road.items()):
        stops.sort(key=lambda p: p.code)
        for a, b in zip(stops, stops[1:]):
            if b.km <= a.km:
                problems.append(f"{road}: km post of {b.code} ({b.km}) not after {a.code} ({a.km})")
            if b.zone < a.zone:
                problems.append(f"{road}: zone of {b.code} ({b.zone}) below {a.code} ({a.zone})")
    return problems
'''


def defects(plazas: list[Plaza], rates: dict, minimum: dict, caps: dict) -> list[Defect]:
    c3, d1, b2, c1 = (_road(plazas, r) for r in ("C3", "D1", "B2", "C1"))
    b4, d4, a1, d2, a3 = (_road(plazas, r) for r in ("B4", "D4", "A1", "D2", "A3"))
    moved = b2[10]
    green_night = {"hour": 23, "green": True}
    return [
        Defect(
            "d01-tollgate-airport-spur-zone-4", "medium",
            "Airport Spur trips in zone 4 cost more than the published tariff",
            ("docs-driven", "one-line-bug", "large-repo", "cross-reference", "python"),
            (("tollgate/tariffs.py", f'("C3", 4): {rates[("C3", 4)]},',
              f'("C3", 4): {rates[("C3", 4)] + 3},'),),
            f"""I drove my car from {c3[13].name} to {c3[9].name} on the Airport Spur and was
charged {{charged}}. Working it out from the published tariff (docs/tariff-spec.md) I get
{{expected}}. A colleague's trip from {c3[14].name} to {c3[12].name} is also too expensive,
but my trips further out on the same road are right.

    $ python -m tollgate fare "{c3[13].name}" "{c3[9].name}"
    {{charged}}

Please make the fares follow the published tariff.""",
            ((c3[13].code, c3[9].code, 1, {}), (c3[14].code, c3[12].code, 1, {}),
             (c3[12].code, c3[15].code, 2, {})),
            ((c3[8].code, c3[10].code, 1, {}), (c3[17].code, c3[19].code, 1, {}),
             (c3[0].code, c3[2].code, 1, {})),
            "C3", (c3[13].name, c3[9].name)),
        Defect(
            "d02-tollgate-southern-loop-plaza", "medium",
            f"Trips from {d1[17].name} are billed below the tariff",
            ("docs-driven", "one-line-bug", "large-repo", "cross-reference", "python"),
            (("tollgate/plazas.py", f'"{d1[17].name}", "D1", {d1[17].km}, {d1[17].zone}),',
              f'"{d1[17].name}", "D1", {d1[17].km}, 3),'),),
            f"""Our revenue audit of the Southern Loop found that trips starting or ending at
{d1[17].name} are billed lower than the published tariff says. A car from {d1[17].name} to
{d1[9].name} was charged {{charged}}; by docs/tariff-spec.md it costs {{expected}}. Trips
between the other plazas of the Southern Loop that we checked are right, e.g.
{d1[16].name} to {d1[9].name}.""",
            ((d1[17].code, d1[9].code, 1, {}), (d1[10].code, d1[17].code, 1, {}),
             (d1[17].code, d1[11].code, 3, {})),
            ((d1[16].code, d1[9].code, 1, {}), (d1[18].code, d1[22].code, 1, {}),
             (d1[2].code, d1[5].code, 1, {})),
            "D1", (d1[17].name, d1[9].name)),
        Defect(
            "d03-tollgate-forest-road-distance", "medium",
            f"Trips to {moved.name} are charged for 10 km too many",
            ("docs-driven", "one-line-bug", "large-repo", "cross-reference", "python"),
            (("tollgate/plazas.py", f'"{moved.name}", "B2", {moved.km}, {moved.zone}),',
              f'"{moved.name}", "B2", {moved.km + 10.0}, {moved.zone}),'),),
            f"""Drivers complain about the Forest Road: a car from {b2[8].name} to {moved.name}
was charged {{charged}} although the published tariff (docs/tariff-spec.md) gives
{{expected}}. Going on past it, to {b2[12].name}, costs less than stopping at
{moved.name}, which cannot be right. Please check what is wrong and fix it.""",
            ((b2[8].code, moved.code, 1, {}), (moved.code, b2[12].code, 1, {}),
             (b2[5].code, moved.code, 2, {})),
            ((b2[8].code, b2[12].code, 1, {}), (b2[11].code, b2[14].code, 1, {}),
             (b2[1].code, b2[4].code, 3, {})),
            "B2", (b2[8].name, moved.name)),
        Defect(
            "d04-tollgate-articulated-lorries", "medium",
            "Articulated lorries are charged less than the tariff's class factor",
            ("docs-driven", "one-line-bug", "large-repo", "cross-reference", "python"),
            (("tollgate/classes.py", "    4: 250,", "    4: 205,"),),
            f"""Our haulage customer runs articulated lorries on the Eastern Bypass. A trip
from {c1[3].name} to {c1[15].name} was charged {{charged}}; by the published tariff
(docs/tariff-spec.md) it should be {{expected}}. Their two-axle lorries and vans are billed
correctly on the same trips.""",
            ((c1[3].code, c1[15].code, 4, {}), (c1[0].code, c1[23].code, 4, {}),
             (c1[5].code, c1[9].code, 4, {"hour": 23})),
            ((c1[3].code, c1[15].code, 3, {}), (c1[3].code, c1[15].code, 2, {}),
             (c1[3].code, c1[15].code, 5, {})),
            "C1", (c1[3].name, c1[15].name)),
        Defect(
            "d05-tollgate-short-trip-minimum", "hard",
            "Short trips on the Moor Crossing and Canal Way have the wrong minimum charge",
            ("docs-driven", "multi-file-bug", "large-repo", "cross-reference", "python"),
            (("tollgate/tariffs.py", f'    "B4": {minimum["B4"]},', f'    "B4": {minimum["D4"]},'),
             ("tollgate/tariffs.py", f'    "D4": {minimum["D4"]},', f'    "D4": {minimum["B4"]},')),
            f"""Short hops between neighbouring plazas cost the wrong amount on two roads.
On the Moor Crossing a car from {b4[0].name} to {b4[1].name} was charged {{charged}}, but
the published tariff (docs/tariff-spec.md) gives {{expected}}. On Canal Way it is the other
way round: a car from {d4[0].name} to {d4[1].name} pays less than the tariff. Long trips on
both roads are right.""",
            ((b4[0].code, b4[1].code, 1, {}), (d4[0].code, d4[1].code, 1, {}),
             (b4[1].code, b4[2].code, 2, {})),
            ((b4[0].code, b4[20].code, 1, {}), (d4[2].code, d4[18].code, 1, {}),
             (a1[0].code, a1[1].code, 1, {})),
            "B4", (b4[0].name, b4[1].name), (("docs/tariff-spec.md", "## Road D4"),)),
        Defect(
            "d06-tollgate-capped-lorries", "hard",
            "Lorries on capped roads pay more than the cap",
            ("docs-driven", "one-line-bug", "large-repo", "cross-reference", "python"),
            (("tollgate/fare.py",
              """    cents = classes.apply_factor(class1_cents(a, b, edition), vehicle_class)
    cap = tariffs.cap(a.road, edition)
    if cap is not None:
        cents = min(cents, cap)
""",
              """    cents = class1_cents(a, b, edition)
    cap = tariffs.cap(a.road, edition)
    if cap is not None:
        cents = min(cents, cap)
    cents = classes.apply_factor(cents, vehicle_class)
"""),),
            f"""The Northern Trunk is a capped road in the published tariff
(docs/tariff-spec.md), but our two-axle lorry was charged {{charged}} for the whole road,
from {a1[0].name} to {a1[23].name}; I expected {{expected}}. Cars on the same trip are
billed correctly.""",
            ((a1[0].code, a1[23].code, 3, {}), (a1[2].code, a1[20].code, 4, {}),
             (a1[0].code, a1[23].code, 2, {})),
            ((a1[0].code, a1[23].code, 1, {}), (a1[0].code, a1[3].code, 3, {}),
             (c1[0].code, c1[23].code, 3, {})),
            "A1", (a1[0].name, a1[23].name)),
        Defect(
            "d07-tollgate-mountain-pass-zone", "hard",
            "Mountain Pass trips uphill cost more than the tariff",
            ("docs-driven", "config-cli", "large-repo", "cross-reference", "python"),
            (("tollgate/tariffs.py", 'ENTRY_ZONE_ROADS = frozenset({"B3", "C4", "D2"})',
              'ENTRY_ZONE_ROADS = frozenset({"B3", "C4"})'),),
            f"""On the Mountain Pass a car from {d2[2].name} up to {d2[21].name} was charged
{{charged}}; the published tariff (docs/tariff-spec.md) gives {{expected}}. Coming back down
from {d2[21].name} to {d2[2].name} is charged right, and so are trips on the Lakeside,
which has the same kind of tariff.""",
            ((d2[2].code, d2[21].code, 1, {}), (d2[5].code, d2[13].code, 1, {}),
             (d2[0].code, d2[23].code, 2, {})),
            ((d2[21].code, d2[2].code, 1, {}), (_road(plazas, "B3")[2].code,
              _road(plazas, "B3")[21].code, 1, {}), (a3[2].code, a3[21].code, 1, {})),
            "D2", (d2[2].name, d2[21].name), (("docs/tariff-spec.md", "## Road B3"),)),
        Defect(
            "d08-tollgate-discounts-add-up", "hard",
            "Green cars at night get more discount than the tariff allows",
            ("docs-driven", "one-line-bug", "large-repo", "cross-reference", "python"),
            (("tollgate/discounts.py",
              "Discounts do not add up: when several apply, the largest one is given.",
              "When several discounts apply, the driver gets all of them."),
             ("tollgate/discounts.py",
              "    return max((percent for _, percent in found), default=0)",
              "    return sum(percent for _, percent in found)")),
            f"""Our low-emission car was charged {{charged}} for a night trip on the Valley Line
from {a3[2].name} to {a3[9].name} (entered at 23:10). That is half the day fare; by the
published tariff (docs/tariff-spec.md) it should be {{expected}}. Day trips, and night
trips of ordinary cars, are billed right.""",
            ((a3[2].code, a3[9].code, 1, green_night),
             (a3[2].code, a3[9].code, 1, {"hour": 2, "trips_this_month": 25}),
             (a3[2].code, a3[9].code, 2, {"hour": 12, "green": True, "trips_this_month": 30})),
            ((a3[2].code, a3[9].code, 1, {"hour": 23}), (a3[2].code, a3[9].code, 1, {}),
             (a3[2].code, a3[9].code, 1, {"green": True})),
            "A3", (a3[2].name, a3[9].name)),
    ]


def _call(case: Case) -> str:
    entry, exit_, vehicle_class, conditions = case
    extra = "".join(f", {k}={v!r}" for k, v in conditions.items())
    return f'trip_fare("{entry}", "{exit_}", {vehicle_class}{extra})'


def _fare(module, case: Case) -> int:
    entry, exit_, vehicle_class, conditions = case
    return module.trip_fare(entry, exit_, vehicle_class, **conditions)


def hidden_tests(d: Defect, correct, broken) -> tuple[str, list[str], list[str]]:
    """The hidden test module and its fail_to_pass / pass_to_pass ids; every case checked
    against both implementations here, so a task cannot be written that does not
    discriminate."""
    lines = ["import unittest", "", "from tollgate.fare import trip_fare", "", ""]
    ids: dict[str, list[str]] = {"TestReported": [], "TestUnchanged": []}
    for cls, cases, must_differ in (("TestReported", d.f2p, True),
                                    ("TestUnchanged", d.p2p, False)):
        lines.append(f"class {cls}(unittest.TestCase):")
        for n, case in enumerate(cases, start=1):
            good, bad = _fare(correct, case), _fare(broken, case)
            if (good != bad) != must_differ:
                raise SystemExit(f"{d.task_id}: case {case} gives {good} and {bad} with the "
                                 f"defect ({'must differ' if must_differ else 'must agree'})")
            name = f"test_trip_{n}"
            lines += [f"    def {name}(self):", f"        self.assertEqual({_call(case)}, {good})",
                      ""]
            ids[cls].append(f"tests_hidden.test_fares_hidden.{cls}.{name}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n", ids["TestReported"], ids["TestUnchanged"]


def _line_of(path: Path, text: str) -> int:
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if text in line:
            return n
    raise SystemExit(f"{path}: no line with {text!r}")


def _fare_command(case: Case, names: tuple[str, ...], explain: bool = True) -> str:
    _entry, _exit, vehicle_class, conditions = case
    flags = f" --class {vehicle_class}" if vehicle_class != 1 else ""
    if "hour" in conditions:
        flags += f" --hour {conditions['hour']}"
    if conditions.get("green"):
        flags += " --green"
    return (f'python -m tollgate fare "{names[0]}" "{names[1]}"{flags}'
            + (" --explain" if explain else ""))


def _read(path: str, start: int | None = None, end: int | None = None) -> dict:
    args: dict = {"path": path}
    if start is not None:
        args.update(start_line=start, end_line=end)
    return {"tool": "read_file", "args": args}


def oracle(d: Defect, repo: Path) -> list[dict]:
    """A plausible trajectory: reproduce, look the plazas and the road up in the register
    and the tariff, read the tables and the code that compute the fare, fix, check."""
    spec = repo / "docs" / "tariff-spec.md"
    road_at = _line_of(spec, f"## Road {d.road}:")
    plaza_at = _line_of(repo / "tollgate" / "plazas.py", f'"{d.names[0]}"')
    rates_at = _line_of(repo / "tollgate" / "tariffs.py", f'("{d.road}", 1)')
    command = _fare_command(d.f2p[0], d.names)
    other_at = _line_of(repo / "tollgate" / "plazas.py", f'"{d.names[1]}"')
    appendix_at = _line_of(spec, "## Appendix")
    second = d.f2p[1]
    steps = [
        {"tool": "list_dir", "args": {"path": "."}},
        _read("README.md"),
        {"tool": "run", "args": {"command": command}},
        _read("docs/tariff-spec.md"),  # whole: the observation keeps its head and tail
        _read("tollgate/plazas.py"),
        {"tool": "grep", "args": {"pattern": "|".join(d.names), "path": "tollgate"}},
        _read("tollgate/plazas.py", max(1, plaza_at - 40), plaza_at + 40),
    ]
    if abs(other_at - plaza_at) > 40:
        steps.append(_read("tollgate/plazas.py", max(1, other_at - 20), other_at + 20))
    steps += [
        _read("tollgate/fare.py"),
        {"tool": "run", "args": {"command": f"python -m tollgate fare {second[0]} {second[1]}"
                                            f" --class {second[2]} --explain"}},
        {"tool": "grep", "args": {"pattern": f"## Road {d.road}", "path": "docs"}},
        _read("docs/tariff-spec.md", 1, 60),
        _read("docs/tariff-spec.md", road_at, road_at + 40),
        _read("docs/tariff-spec.md", appendix_at, appendix_at + 25),
    ]
    for path, text in d.reads:
        at = _line_of(repo / path, text)
        steps.append(_read(path, at, at + 40))
    steps += [
        _read("tollgate/tariffs.py"),
        _read("tollgate/tariffs.py", max(1, rates_at - 30), rates_at + 30),
        _read("tollgate/tariffs.py", 100, 149),
        _read("tollgate/classes.py"),
        _read("tollgate/discounts.py"),
        _read("tollgate/money.py"),
        {"tool": "grep", "args": {"pattern": "trip_fare", "path": "."}},
        _read("tollgate/statement.py"),
        _read("tests/test_fare.py"),
        _read("tollgate/register.py"),
        {"tool": "run", "args": {"command": "python -c 'from tollgate.plazas import PLAZAS; "
                                            "from tollgate.register import check_register; "
                                            "print(check_register(list(PLAZAS.values())))'"}},
    ]
    for path, good, bad in d.replacements:
        steps.append({"tool": "edit", "args": {"path": path, "old": bad, "new": good}})
    steps += [
        {"tool": "run", "args": {"command": command}},
        {"tool": "run_tests", "args": {}},
        {"tool": "submit", "args": {}},
    ]
    return steps


def task_yaml(d: Defect, issue: str, f2p: list[str], p2p: list[str]) -> str:
    """Written by hand, as the other core tasks are: the issue as a literal block."""
    block = "\n".join(f"  {line}" if line else "" for line in issue.splitlines())
    tests = lambda ids: "\n".join(f"  - {i}" for i in ids)  # noqa: E731
    return f"""id: {d.task_id}
title: {d.title}
tier: {d.tier}
tags: [{", ".join(d.tags)}]
issue: |
{block}
test_command: python -m unittest discover -s tests -t . -q
hidden_test_command: python -m unittest discover -s tests_hidden -t . -q
fail_to_pass:
{tests(f2p)}
pass_to_pass:
{tests(p2p)}
limits:
  max_steps: 50
  wall_s: 2400
  command_timeout_s: 60
"""


def write_task(core: Path, d: Defect, base: Path, correct) -> None:
    task = core / d.task_id
    if task.exists():
        shutil.rmtree(task)
    repo = task / "repo"
    shutil.copytree(base, repo, ignore=shutil.ignore_patterns("__pycache__"))
    for path, good, bad in d.replacements:
        target = repo / path
        text = target.read_text()
        if text.count(good) != 1:
            raise SystemExit(f"{d.task_id}: {good!r} occurs {text.count(good)} times in {path}")
        text = text.replace(good, bad)
        if text.count(bad) != 1:
            raise SystemExit(f"{d.task_id}: the defect {bad!r} is not unique in {path}")
        target.write_text(text)
    broken = _load(repo)
    test_module, f2p, p2p = hidden_tests(d, correct, broken)
    charged, expected = _fare(broken, d.f2p[0]), _fare(correct, d.f2p[0])
    issue = d.issue.format(charged=money(charged), expected=money(expected))
    hidden = task / "hidden_tests" / "tests_hidden"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("")
    (hidden / "test_fares_hidden.py").write_text(test_module)
    import yaml

    (task / "task.yaml").write_text(task_yaml(d, issue, f2p, p2p))
    (task / "oracle.yaml").write_text(
        "# The reference solution, replayed through the real tools by `edgeagent tasks validate`\n"
        "# (written by tasks/generators/gen_tollgate.py).\n"
        + yaml.safe_dump(oracle(d, repo), sort_keys=False, width=100, allow_unicode=True))
    for cache in repo.rglob("__pycache__"):
        shutil.rmtree(cache)


def write_all(core: Path) -> list[str]:
    plazas, rates, minimum, caps = network()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "repo"
        write_repo(base, plazas, rates, minimum, caps)
        # each import is a fresh set of tollgate modules: the correct one stays as loaded
        # here while the defective copies are imported after it
        correct = _load(base)
        for rel, text in visible_tests(plazas, correct).items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_text(text)
        written = []
        for d in defects(plazas, rates, minimum, caps):
            write_task(core, d, base, correct)
            written.append(d.task_id)
        return written


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "core"
    names = write_all(root)
    print(f"{len(names)} tollgate tasks written to {root}")
