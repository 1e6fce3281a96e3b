"""Who else is using the CPUs right now: every process's CPU use over one short window, and
the host's busy and steal shares over the same window (psutil's cpu_times: /proc/stat's
aggregate `cpu` line on Linux). `edgeagent doctor` names the busy ones before a run: on a
2-core machine another busy process cuts llama.cpp's decode from 22.5 to 6.5 tok/s.

One window for everything: each process's CPU time is read once before and once after it
(psutil's cpu_percent), so the whole sample costs WINDOW_S plus a /proc read per process.
The sampling process and its ancestors (the shell, pytest, an IDE running it) are left out.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass

import psutil

BUSY_CPU_PERCENT = 10.0  # of one CPU over the window: a process above it is named
WINDOW_S = 0.5
MAX_NAMED = 5
_CMDLINE_CHARS = 80
_IDLE_FIELDS = ("idle", "iowait")
_NOT_IN_TOTAL = ("guest", "guest_nice")  # already counted in user and nice


@dataclass(frozen=True)
class BusyProcess:
    pid: int
    name: str
    cmdline: str  # shortened to _CMDLINE_CHARS
    cpu_percent: float  # of one CPU over the window (above 100 for several threads)


@dataclass(frozen=True)
class HostLoad:
    window_s: float
    cpus: int
    threshold: float  # percent of one CPU
    busy: tuple[BusyProcess, ...]  # above the threshold, largest first, at most MAX_NAMED
    more: int  # processes above the threshold beyond those named
    busy_share: float | None  # the host's CPUs busy over the window (all processes), 0..1
    steal_share: float | None  # taken by the hypervisor for other guests, 0..1
    null_reason: str | None = None  # why a host share is missing


def own_lineage() -> set[int]:
    """This process and its ancestors: what samples the host is not a neighbour of it."""
    pids = {os.getpid()}
    try:
        pids.update(p.pid for p in psutil.Process().parents())
    except psutil.Error:
        pass
    return pids


def _host_times() -> dict[str, float] | None:
    try:
        return dict(psutil.cpu_times()._asdict())
    except (OSError, psutil.Error, AttributeError):
        return None


def _shares(before: dict[str, float] | None, after: dict[str, float] | None
            ) -> tuple[float | None, float | None, str | None]:
    """(busy, steal, why missing) from two readings of the host's cumulative CPU times."""
    if before is None or after is None:
        return None, None, "the host's CPU times are unreadable here"
    delta = {k: after[k] - before.get(k, 0.0) for k in after}
    total = sum(v for k, v in delta.items() if k not in _NOT_IN_TOTAL)
    if total <= 0:
        return None, None, "the host's CPU times did not advance over the window"
    idle = sum(delta.get(k, 0.0) for k in _IDLE_FIELDS)
    steal = delta.get("steal")
    busy = total - idle - (steal or 0.0)
    why = None if steal is not None else "steal is not reported on this OS"
    return max(0.0, busy / total), None if steal is None else max(0.0, steal / total), why


def _describe(proc: psutil.Process, percent: float) -> BusyProcess:
    try:
        name = proc.name()
    except psutil.Error:
        name = "?"
    try:
        cmdline = " ".join(proc.cmdline())
    except psutil.Error:
        cmdline = ""
    if len(cmdline) > _CMDLINE_CHARS:
        cmdline = cmdline[:_CMDLINE_CHARS - 3] + "..."
    return BusyProcess(proc.pid, name, cmdline or f"[{name}]", percent)


def sample_host_load(window_s: float = WINDOW_S, threshold: float = BUSY_CPU_PERCENT,
                     exclude: Iterable[int] | None = None) -> HostLoad:
    """Every process's CPU use over one window of `window_s`; those above `threshold` (% of
    one CPU) named, largest first. `exclude`: pids left out (default: own_lineage())."""
    skip = own_lineage() if exclude is None else set(exclude)
    procs = []
    for proc in psutil.process_iter():
        if proc.pid in skip:
            continue
        try:
            proc.cpu_percent(None)  # the first reading: the window starts here
        except psutil.Error:
            continue
        procs.append(proc)
    before = _host_times()
    time.sleep(window_s)
    after = _host_times()
    measured = []
    for proc in procs:
        try:
            percent = proc.cpu_percent(None)
        except psutil.Error:  # ended during the window
            continue
        if percent >= threshold:
            measured.append((percent, proc))
    measured.sort(key=lambda m: -m[0])
    busy, steal, why = _shares(before, after)
    return HostLoad(window_s, psutil.cpu_count(logical=True) or 1, threshold,
                    tuple(_describe(p, pct) for pct, p in measured[:MAX_NAMED]),
                    max(0, len(measured) - MAX_NAMED), busy, steal, why)
