#!/usr/bin/env python3
"""Benchmark: the power sampler's CPU overhead at 20 Hz and 100 Hz, as a share of one core.

    python tools/bench_meter.py [--seconds 60] [--rates 20,100] [--root DIR] [--fixture-sources]

For each rate a `Sampler` set up as `edgeagent run` sets it up reads, for --seconds while the
main thread sleeps: the device total's sources every sample; every other source
`discover_all(root)` finds, with RSS, the temperature sensors and the CPU clock, once a
second; and this process's CPU time every sample. The cost is this process's CPU time
(user + system, all threads: the
sampler's) over the wall time, i.e. the share of one core it keeps busy. The samples taken
against the nominal rate show whether the sampler kept up.

A machine without power sensors (a VM, a CI runner) discovers none, so only psutil is read;
--fixture-sources copies the RAPL laptop fixture tree (tests/fixtures/sysfs/rapl/laptop, four
zones) to a temp dir and uses it as the root, so real sysfs-style file reads are in the cost.

After the runs, a control thread that only wakes on the same grid (no reads) runs for
--control-seconds per rate: its share is the OS/VM floor included in the sampler's share.

Prints one JSON object; target: cpu share <= 0.005 (0.5% of one core) at 20 Hz.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from edgeagent.meter.sampler import Sampler  # noqa: E402
from edgeagent.meter.sources import choose_total, discover_all  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "sysfs" / "rapl" / "laptop"
TARGET_RATE_HZ = 20.0
TARGET_SHARE = 0.005


def measure(total: tuple, side: tuple, rate_hz: float, seconds: float) -> dict:
    """Run one Sampler at rate_hz for seconds while this thread sleeps; its cost and rate."""
    sampler = Sampler(1.0 / rate_hz, total, side_sources=side)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    sampler.start()
    time.sleep(seconds)
    sampler.stop()
    cpu1, wall1 = time.process_time(), time.perf_counter()
    wall, cpu = wall1 - wall0, cpu1 - cpu0
    taken = sampler.samples()[:-1]  # less the closing sample stop() takes
    samples = len(taken)
    complete = sum(
        1 for s in taken
        if len(s.readings) >= len(total) and all(v is not None for _, v in s.readings)
    )
    return {
        "rate_hz": rate_hz,
        "seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 4),
        "cpu_share_of_one_core": round(cpu / wall, 6),
        "samples": samples,
        "expected_samples": round(rate_hz * seconds),
        "achieved_hz": round(samples / wall, 3),
        "samples_with_every_total_reading": complete if total else None,
        "cpu_us_per_sample": round(cpu / samples * 1e6, 1) if samples else None,
    }


def bare_wakeups(rate_hz: float, seconds: float) -> float:
    """CPU share of a thread that only wakes on the same grid: the OS/VM floor under measure()."""
    stop = threading.Event()

    def loop() -> None:  # the sampler's own wait: a plain sleep to the next grid point
        interval, next_t = 1.0 / rate_hz, time.monotonic()
        while not stop.is_set():
            next_t += interval
            time.sleep(max(0.0, next_t - time.monotonic()))

    cpu0, wall0 = time.process_time(), time.perf_counter()
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    return round((time.process_time() - cpu0) / (time.perf_counter() - wall0), 6)


def parse_rates(text: str) -> list[float | int]:
    try:
        rates = [float(r) for r in text.split(",") if r.strip()]
    except ValueError:
        msg = f"--rates wants numbers like 20,100, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not rates or any(not r > 0 for r in rates):
        raise argparse.ArgumentTypeError(f"--rates must be positive Hz, got {text!r}")
    return [int(r) if r == int(r) else r for r in rates]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="per rate (default 60)")
    ap.add_argument("--rates", type=parse_rates, default="20,100", help="Hz, e.g. 20,100")
    ap.add_argument("--root", type=Path, default=Path("/"), help="discover sources below DIR")
    ap.add_argument(
        "--fixture-sources", action="store_true",
        help="use a temp copy of the RAPL laptop fixture tree as the root (overrides --root)",
    )
    ap.add_argument(
        "--control-seconds", type=float, default=10.0,
        help="per rate, a thread that only wakes up (no reads), for the floor (0: skip)",
    )
    args = ap.parse_args(argv)
    if not args.seconds > 0:
        ap.error("--seconds must be positive")

    with tempfile.TemporaryDirectory(prefix="bench_meter_") as tmp:
        root = args.root
        if args.fixture_sources:
            root = Path(tmp) / "laptop"
            shutil.copytree(FIXTURE, root, symlinks=True)  # keep the relative class links
            root = root.resolve()
        discovery = discover_all(root)
        total = choose_total(discovery)
        sources = tuple(discovery.sources)
        every = total.sources if total is not None else sources
        runs = [measure(every, sources, rate, args.seconds) for rate in args.rates]
    control_s = min(args.control_seconds, args.seconds)
    if control_s > 0:
        for run in runs:
            run["control_bare_wakeups_share"] = bare_wakeups(run["rate_hz"], control_s)

    at_target = [r for r in runs if r["rate_hz"] == TARGET_RATE_HZ]
    result = {
        "root": "fixture:tests/fixtures/sysfs/rapl/laptop" if args.fixture_sources else str(root),
        "sources": [
            {"name": s.name, "scope": s.scope, "kind": s.info.kind,
             "read": "every sample" if s in every else "once a second"}
            for s in sources
        ],
        "total": None if total is None else total.label,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "runs": runs,
        "target": "cpu share <= 0.005 at 20 Hz",
        "pass": (
            all(r["cpu_share_of_one_core"] <= TARGET_SHARE for r in at_target)
            if at_target else None  # 20 Hz was not among --rates
        ),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
