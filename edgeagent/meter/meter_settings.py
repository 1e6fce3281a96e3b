"""What the run's meter reads and how often, as its config asks (a section of RunConfig:
each key's default, help and flag declared here once)."""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import setting


@dataclass(frozen=True)
class MeterConfig:
    """Where power is read, how often, and how a disturbed run is judged (a section of
    RunConfig)."""

    # clamped to at least 1 s where the total is a battery (run/session.py)
    sample_interval_s: float = setting(0.05, "meter sampling interval, seconds",
                                       minimum=0.005)
    power_root: str = setting("/", "read power sensors below this directory (a copied or "
                              "fixture sysfs tree for tests)")
    power_estimate_tdp: float | None = setting(
        None, "allow a CPU-utilisation x TDP estimate when no sensor exists (always labelled "
        "estimated)", metavar="WATTS", minimum=0.1, default_text="none: no estimate")
    baseline_s: float = setting(
        0.0, "measure idle power this long before the first task, for net energy (0: none)",
        metavar="SECONDS")
    # a run whose model phases lost more of the CPUs to other processes or steal than the
    # check's threshold is INVALID for its timings and energy (docs/interference.md)
    allow_interference: bool = setting(
        False, "accept a run that other processes or steal disturbed: the check notes it "
        "instead of ruling the timings INVALID (docs/interference.md)")
