"""`edgeagent sensors`: every power source, its scope, a live reading and why one is missing."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from ..errors import UserError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sensors", help="list power sources, their scope and a live reading",
        description="Discover every power source (RAPL, Jetson INA3221, battery, NVML, hwmon, "
        "Raspberry Pi, Apple), show its scope and a live reading, and explain each one that "
        "is unavailable and how to fix it.")
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="read a copied or fixture sysfs tree instead of /")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--watch", action="store_true", help="print a reading every second")
    p.add_argument("--baseline", metavar="DURATION",
                   help="measure the idle power of the total over DURATION (e.g. 30s)")
    p.add_argument("--power-estimate-tdp", type=float, metavar="WATTS",
                   help="also offer a CPU-utilisation x TDP estimate (labelled estimated)")
    p.set_defaults(func=_cmd_sensors)


def _reading(source: Any) -> str:
    from ..meter.energy import is_energy_counter, read_source

    value = read_source(source)
    if value is None:
        return "no reading now"
    return f"{value:.3f} J (counter)" if is_energy_counter(source) else f"{value:.3f} W"


def _cmd_sensors(args: argparse.Namespace) -> int:
    import json
    import time

    from ..meter.baseline import measure_baseline, parse_duration
    from ..meter.sources import choose_total, describe, discover_all

    if not args.root.is_dir():
        raise UserError(f"--root {args.root} is not a directory (give a sysfs tree, e.g. /)")
    if args.power_estimate_tdp is not None and args.power_estimate_tdp <= 0:
        raise UserError("--power-estimate-tdp must be a positive number of watts")
    duration = None
    if args.baseline is not None:
        try:
            duration = parse_duration(args.baseline)
        except ValueError as exc:
            raise UserError(f"--baseline: {exc}") from exc
    discovery = discover_all(args.root, tdp_w=args.power_estimate_tdp)
    total = choose_total(discovery)
    if args.json:
        report = describe(discovery, total)
        report["readings"] = {s.name: _reading(s) for s in discovery.sources}
    else:
        for s in discovery.sources:
            mark = "*" if total and s in total.sources else " "
            note = f"  ({s.info.note})" if s.info.note else ""
            print(f"{mark} {s.name:<36} {s.scope:<15} {_reading(s):<22}{note}")
        for u in discovery.unavailable:
            fix = f"; fix: {u.fix}" if u.fix else ""
            print(f"  {u.name:<36} unavailable: {u.reason}{fix}")
        print(f"total: {total.label} (scope {total.scope})" if total
              else "total: none (no power source found; energy will not be measured)")
    if duration is not None:
        baseline = measure_baseline(total, duration)
        if args.json:
            report["baseline"] = dataclasses.asdict(baseline)
        elif baseline.watts is None:
            print(f"baseline: not measured ({baseline.null_reason})")
        else:
            print(f"baseline: {baseline.watts:.3f} W idle over {baseline.duration_s:.1f} s "
                  f"({baseline.samples} samples, {baseline.label})")
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    while args.watch:
        time.sleep(1.0)
        print(time.strftime("%H:%M:%S") + "  " + "  ".join(
            f"{s.name} {_reading(s)}" for s in discovery.sources) or "no sources", flush=True)
    return 0
