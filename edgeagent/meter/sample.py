"""One sample: the record the sampler writes and the energy integration reads.

Its own module, below both, so that energy.py can name it without importing the sampler.
"""

from __future__ import annotations

from typing import NamedTuple


class CpuCounters(NamedTuple):
    """Cumulative CPU-seconds at one instant."""

    busy_s: float  # the host's: user, nice, system, irq, softirq (guest time is in user)
    steal_s: float  # taken by the hypervisor for other guests
    total_s: float  # busy + idle + iowait + steal: the CPUs x the time since boot
    own_s: float  # this process (all threads) and its waited-for children


class Sample(NamedTuple):
    """One reading of everything, taken at t_ns (time.monotonic_ns).

    A named tuple, immutable like a frozen dataclass but built several times faster: one is
    made 20 times a second on the sampler's budget.
    """

    t_ns: int
    # This process only (not its child processes, e.g. the sandboxed tool commands), since
    # the previous sample, in percent of one logical CPU: it can exceed 100 with threads.
    cpu_percent: float | None
    rss_bytes: int | None
    # The first source's power in watts (for a counter: derived from the previous sample).
    power_w: float | None
    temp_c: float | None  # hottest hwmon or thermal-zone sensor
    # (source name, value) for every source: watts, or cumulative joules for a counter.
    readings: tuple[tuple[str, float | None], ...] = ()
    cpu_mhz: float | None = None  # current CPU clock where the OS exposes it
    gpu_mhz: float | None = None  # current GPU clock (Jetson devfreq, amdgpu) where exposed
    # the host's and the run's cumulative CPU time (meter/cpu_load.py); None: unreadable
    cpu_counters: CpuCounters | None = None
