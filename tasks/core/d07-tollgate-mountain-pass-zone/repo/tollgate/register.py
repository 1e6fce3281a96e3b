"""The plaza register as CSV (the operator's exchange format), and its consistency
checks."""

import csv
import io

from tollgate.plazas import Plaza

FIELDS = ("code", "name", "road", "km", "zone")


def to_csv(plazas):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
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
