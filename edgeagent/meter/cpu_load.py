"""Host interference: the CPU time other processes and the hypervisor took while a phase ran.

The host's totals come from /proc/stat's aggregate `cpu` line (busy, steal and all time, in
USER_HZ ticks); the run's own share is this process's CPU time (every thread: the engine's,
the sampler's) plus its waited-for children's (os.times), read at the same instant. What
the host was busy with beyond that was another process's work: a browser, a compile, a
camera pipeline. A child that is still running counts as its own once it has been waited
for, at the end of its tool call; during the model phases the run's children are idle (the
loop runs its tools between them; an external agent waits for the model's answer), so the
model phases' figures are exact up to /proc/stat's tick (10 ms of one CPU).

Each sample carries the cumulative counters; a phase's load is the counters' change over
the samples just around it (the last at or before its start, the first at or after its end),
scaled to its own wall: a phase shorter than the sampling interval gets the share of the
interval it fell in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..events import PhaseLoad
from .sample import CpuCounters, Sample

PROC_STAT = Path("/proc/stat")
_TICK_S = 1 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)
_READ_BYTES = 512  # the aggregate line comes first and is well under this


class HostCpuReader:
    """Reads /proc/stat's aggregate line through a descriptor held open (pread at 0, ~15 µs)."""

    def __init__(self, path: Path = PROC_STAT) -> None:
        self.path = path
        self._fd: int | None = None
        # why the counters cannot be read here (None while they can)
        self.null_reason: str | None = None

    def read(self, own_process_s: float) -> CpuCounters | None:
        """The counters now, with `own_process_s` (time.process_time() taken just before)
        plus the waited-for children's CPU time as the run's own."""
        host = self._host()
        if host is None:
            return None
        t = os.times()
        return CpuCounters(*host, own_process_s + t.children_user + t.children_system)

    def _host(self) -> tuple[float, float, float] | None:
        if self.null_reason is not None:
            return None
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            head = os.pread(self._fd, _READ_BYTES, 0)
        except OSError as exc:
            self.close()
            self.null_reason = f"host CPU counters unreadable: {self.path}: {exc.strerror or exc}"
            return None
        parsed = parse_cpu_line(head.split(b"\n", 1)[0])
        if parsed is None:
            self.close()
            self.null_reason = f"host CPU counters unreadable: {self.path} has no aggregate " \
                "`cpu` line of at least 8 counters"
        return parsed

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def parse_cpu_line(line: bytes) -> tuple[float, float, float] | None:
    """(busy_s, steal_s, total_s) from /proc/stat's `cpu  user nice system idle iowait irq
    softirq steal ...` line, or None when it is not one."""
    fields = line.split()
    if len(fields) < 9 or fields[0] != b"cpu":
        return None
    try:
        user, nice, system, idle, iowait, irq, softirq, steal = (int(f) for f in fields[1:9])
    except ValueError:
        return None
    busy = user + nice + system + irq + softirq
    return busy * _TICK_S, steal * _TICK_S, (busy + idle + iowait + steal) * _TICK_S


def phase_load(samples: Sequence[Sample], t0_ns: int, t1_ns: int,
               null_reason: str | None = None) -> PhaseLoad:
    """Other processes' and steal's CPU-seconds over [t0, t1], from the samples around it
    (samples_covering's, oldest first). `null_reason`: why not measured, when known."""
    with_counters = [s for s in samples if s.cpu_counters is not None]
    if null_reason is not None or len(with_counters) < 2:
        return PhaseLoad(None, None, None, null_reason or "not measured: fewer than two "
                         "samples of the host's CPU counters around the phase")
    before = [s for s in with_counters if s.t_ns <= t0_ns]
    after = [s for s in with_counters if s.t_ns >= t1_ns]
    a = before[-1] if before else with_counters[0]
    b = after[0] if after else with_counters[-1]
    if b.t_ns <= a.t_ns:  # the phase lies past the newest sample: the latest interval
        a, b = with_counters[-2], with_counters[-1]
    ca, cb = a.cpu_counters, b.cpu_counters
    assert ca is not None and cb is not None  # filtered above
    total = cb.total_s - ca.total_s
    if total <= 0:
        return PhaseLoad(None, None, None, "not measured: the host's CPU counters did not "
                         "advance between samples")
    # the window's CPUs-worth of time, scaled to the phase's own wall
    scale = max(0, t1_ns - t0_ns) / 1e9 / ((b.t_ns - a.t_ns) / 1e9)
    other = (cb.busy_s - ca.busy_s) - (cb.own_s - ca.own_s)
    return PhaseLoad(other * scale, (cb.steal_s - ca.steal_s) * scale, total * scale, None)
