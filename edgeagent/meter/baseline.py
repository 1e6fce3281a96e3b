"""Idle baseline power, and net energy = gross - baseline power x duration.

`edgeagent sensors --baseline 30s` (and an optional baseline before a run) measures what the
device draws while this process does nothing, over the same total sources the run is metered
with. A run then reports both gross energy (everything the total sources saw) and net energy
(what the work added on top of idling).

The baseline is the mean power over the window, i.e. the window's energy divided by its
duration, computed with the same attribution as phases (`attribute_energy`): a counter such as
RAPL has no instantaneous reading, so a mean is what every source can give alike. (The power
sensor notes suggest a median of sampled power, which resists spikes; a 10-30 s idle window
with this process asleep has few of those.)
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from edgeagent.meter.energy import attribute_energy
from edgeagent.meter.sampler import Sampler

if TYPE_CHECKING:
    from edgeagent.meter.sources import Total

NO_TOTAL = "no power source found"

# How often `progress` is told the elapsed time (and the longest single sleep).
_PROGRESS_EVERY_S = 1.0


@dataclass(frozen=True)
class Baseline:
    """Mean idle power of a total; watts is None with null_reason when it is unknown."""

    watts: float | None
    duration_s: float  # the measured window (monotonic), not just the one asked for
    samples: int  # samples taken inside the window
    scope: str | None  # the total's scope, e.g. "psys", "module-input"
    label: str | None  # the total's label, e.g. "rapl:package-0 + rapl:package-0/dram"
    null_reason: str | None = None


def measure_baseline(
    total: Total | None,
    duration_s: float,
    interval_s: float = 0.05,
    *,
    progress: Callable[[float], None] | None = None,
) -> Baseline:
    """Sample every source of total for duration_s while this process sleeps.

    watts = (sum over the total's sources of their energy in the window) / window duration.
    Null with a reason when total is None or any source's energy is unknown (a gap, a failed
    read): a partial sum would understate the baseline and overstate every net energy.

    progress, when given, is called with the elapsed seconds about once a second and once at
    the end (e.g. for "baseline 12/30 s" on a terminal). Blocks for about duration_s.
    """
    if not (duration_s > 0 and math.isfinite(duration_s)):
        raise ValueError(
            f"baseline duration must be a positive number of seconds, got {duration_s}"
        )
    if total is None or not total.sources:
        return Baseline(None, 0.0, 0, None, None, NO_TOTAL)
    sampler = Sampler(interval_s, total.sources)
    sampler.start()  # the thread's first sample lands right at the window's start
    try:
        t0_ns = time.monotonic_ns()
        end_ns = t0_ns + round(duration_s * 1e9)
        while (now := time.monotonic_ns()) < end_ns:
            time.sleep(min(_PROGRESS_EVERY_S, (end_ns - now) / 1e9))
            if progress is not None:
                progress(min(duration_s, (time.monotonic_ns() - t0_ns) / 1e9))
        t1_ns = time.monotonic_ns()
    finally:
        sampler.stop()  # also takes a closing sample after t1, the window's right edge
    samples = sampler.samples()
    window_s = (t1_ns - t0_ns) / 1e9
    inside = sum(1 for s in samples if t0_ns <= s.t_ns <= t1_ns)
    joules = 0.0
    for source in total.sources:
        energy = attribute_energy(samples, t0_ns, t1_ns, source)
        if energy.joules is None:
            return Baseline(
                None, window_s, inside, total.scope, total.label,
                f"{source.name}: {energy.null_reason}",
            )
        joules += energy.joules
    return Baseline(joules / window_s, window_s, inside, total.scope, total.label, None)


def net_energy(gross_j: float | None, baseline: Baseline | None, duration_s: float) -> float | None:
    """gross_j - baseline watts x duration_s; None when the gross or the baseline is unknown.

    A negative result is returned as is, never clamped to 0: it means the device drew less
    than its measured idle (a noisy or too short baseline, a power mode or clock change, the
    battery starting to charge), and a silent 0 would hide that. Callers show the number and
    flag it. The baseline must come from the same total (scope) as gross_j.
    """
    if gross_j is None or baseline is None or baseline.watts is None:
        return None
    return gross_j - baseline.watts * duration_s


_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$", re.IGNORECASE)
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds from "30s", "2m", "500ms", "1h" or a bare number of seconds ("45", "1.5").

    Raises ValueError for anything else, and for a zero duration.
    """
    match = _DURATION_RE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(
            f"invalid duration {text!r}: expected a number of seconds with an optional unit "
            "ms, s, m or h, e.g. 30s, 2m, 45"
        )
    seconds = float(match.group(1)) * _UNIT_S[(match.group(2) or "s").lower()]
    if seconds <= 0:
        raise ValueError(f"invalid duration {text!r}: must be longer than zero")
    return seconds
