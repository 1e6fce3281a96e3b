"""`edgeagent sensors`: every power source, its scope, a live reading and why one is missing."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from ..errors import UserError


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sensors", help="list power sources, their scope and a live reading",
        description="Discover every power source (RAPL, Jetson INA3221, battery, NVML, hwmon, "
        "Raspberry Pi, Apple), show its scope and a live reading, and explain each one that "
        "is unavailable and how to fix it.")
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="read a copied or fixture sysfs tree instead of /")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (readings as numbers, each with its unit)")
    p.add_argument("--watch", action="store_true",
                   help="print every source's power in watts every second (counters as "
                   "their rate), until Ctrl-C")
    p.add_argument("--baseline", metavar="DURATION",
                   help="measure the idle power of the total over DURATION (e.g. 30s)")
    p.add_argument("--power-estimate-tdp", type=float, metavar="WATTS",
                   help="also offer a CPU-utilisation x TDP estimate (labelled estimated)")
    p.set_defaults(func=_cmd_sensors)


WATCH_INTERVAL_S = 1.0


def _reading(source: Any) -> str:
    from ..meter import is_energy_counter, read_source

    value = read_source(source)
    if value is None:
        return "no reading now"
    return f"{value:.3f} J (counter)" if is_energy_counter(source) else f"{value:.3f} W"


def _reading_json(source: Any) -> dict[str, Any]:
    """A reading as a number and its unit: W for a power source, J for an energy counter
    (its running total; `--watch` shows its rate in W)."""
    from ..meter import is_energy_counter, read_source

    value = read_source(source)
    counter = is_energy_counter(source)
    return {"value": value, "unit": "J" if counter else "W",
            "kind": "energy counter" if counter else "power",
            "null_reason": None if value is not None else "no reading now"}


def _watch(sources: list[Any]) -> int:
    """A line a second: watts of each source, counters differenced over the interval."""
    import time

    from ..meter import is_energy_counter, read_source

    if not sources:
        raise UserError("nothing to watch: no power source found (the list above says why; "
                        "--power-estimate-tdp WATTS offers a labelled estimate)")
    last = {s.name: (time.monotonic(), read_source(s)) for s in sources if is_energy_counter(s)}
    try:
        while True:
            time.sleep(WATCH_INTERVAL_S)
            parts = []
            for s in sources:
                value = read_source(s)
                if is_energy_counter(s):
                    t0, j0 = last[s.name]
                    now = time.monotonic()
                    last[s.name] = (now, value)
                    if value is None or j0 is None or value < j0:  # no read, or a wrap
                        parts.append(f"{s.name} n/a")
                        continue
                    value = (value - j0) / (now - t0)
                parts.append(f"{s.name} " + ("n/a" if value is None else f"{value:.3f} W"))
            print(time.strftime("%H:%M:%S") + "  " + "  ".join(parts), flush=True)
    except KeyboardInterrupt:
        return 130  # Ctrl-C is how --watch ends: no traceback


def _cmd_sensors(args: argparse.Namespace) -> int:
    import json

    from ..meter import measure_baseline, parse_duration
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
        report["readings"] = {s.name: _reading_json(s) for s in discovery.sources}
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
    if args.watch:
        return _watch(list(discovery.sources))
    return 0
