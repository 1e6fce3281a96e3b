"""python -m fleetops --data DIR COMMAND (see docs/cli.md)."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from fleetops.errors import FleetError
from fleetops.util.csvio import load_records

KINDS = ("depot", "vehicle", "driver", "customer", "route", "stop", "trip", "fuel_log", "maintenance", "supplier", "part", "tire", "inspection", "incident", "shift", "shipment", "invoice", "toll")


def load_store(data: Path, kind: str):
    """The store of one kind, filled from DIR/<kind>s.csv (empty if the file is absent)."""
    model = importlib.import_module(f"fleetops.models.{kind}")
    store_mod = importlib.import_module(f"fleetops.store.{kind}_store")
    cls_name = "".join(p.capitalize() for p in kind.split("_")) + "Store"
    store = getattr(store_mod, cls_name)()
    path = data / f"{kind}s.csv"
    if path.exists():
        for record in load_records(path, model.parse_row):
            store.add(record)
    return store


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fleetops")
    parser.add_argument("--data", type=Path, default=Path("data"), help="CSV directory")
    sub = parser.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="print every record of a kind")
    ls.add_argument("kind", choices=KINDS)
    rep = sub.add_parser("report", help="print a report")
    rep.add_argument("what", help="fuel, trips, or a record kind")
    rep.add_argument("--month", help="YYYY-MM (fuel report only)")
    return parser


def run(args: argparse.Namespace, out) -> None:
    if args.command == "list":
        for record in load_store(args.data, args.kind):
            print(record, file=out)
        return
    if args.what == "fuel":
        from fleetops.reports.fuel_report import fuel_report

        tables = fuel_report(
            load_store(args.data, "fuel_log"), load_store(args.data, "vehicle"), args.month
        )
        print("\n\n".join(t.render() for t in tables), file=out)
    elif args.what == "trips":
        from fleetops.reports.trips_by_driver import trips_report

        table = trips_report(
            load_store(args.data, "trip"),
            load_store(args.data, "driver"),
            load_store(args.data, "vehicle"),
        )
        print(table.render(), file=out)
    elif args.what in KINDS:
        report = importlib.import_module(f"fleetops.reports.{args.what}_report")
        summary = getattr(report, f"{args.what}_summary")
        print(summary(load_store(args.data, args.what)).render(), file=out)
    else:
        raise FleetError(f"unknown report {args.what!r} (use fuel, trips or a record kind)")


def main(argv: list[str] | None = None, out=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        run(args, out or sys.stdout)
    except FleetError as exc:
        print(f"fleetops: {exc}", file=sys.stderr)
        return 2
    return 0
