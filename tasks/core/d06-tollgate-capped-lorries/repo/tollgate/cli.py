"""`python -m tollgate fare ENTRY EXIT [--class N] [--hour H]`: a trip's charge."""

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
        print("\n".join(explain(args.entry, args.exit, args.vehicle_class, hour=args.hour,
                                 green=args.green)))
    print(fmt(cents))
    return 0
