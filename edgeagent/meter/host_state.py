"""This host's slow-changing state for the sampler: own RSS, hottest temperature, CPU clock.

Read once a second through descriptors held open (`KEPT`), not through psutil's per-call
directory scans: psutil's reads of these cost ~0.2 ms each from a cold cache, which at the
sampler's rate would spend most of the meter's CPU budget. psutil remains the fallback where
the Linux files are missing (macOS, Windows, kernels without cpufreq).
"""

from __future__ import annotations

import os
from pathlib import Path

import psutil

from edgeagent.meter.sources import GPU_OF_NAMES, KEPT, read_str

# Plausible die/board temperatures: sysfs reports sentinels such as -273 or 255 for
# absent probes, which are not measurements.
_TEMP_RANGE_C = (-40.0, 150.0)


class HostReader:
    """Finds the files once at construction, then reads them cheaply on every call."""

    def __init__(self, root: Path = Path("/")) -> None:
        self._statm = Path("/proc/self/statm")  # this process, whatever root the sensors use
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        sys_ = root / "sys"
        self._temps = sorted(
            [*sys_.glob("class/hwmon/hwmon*/temp*_input"),
             *sys_.glob("class/thermal/thermal_zone*/temp")]
        )
        self._clocks = sorted(sys_.glob("devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"))
        self._gpu_clocks = _gpu_clock_files(sys_)
        self._process = psutil.Process()

    def rss_bytes(self) -> int | None:
        pages = KEPT.read_ints(self._statm)
        if pages is not None and len(pages) >= 2:
            return pages[1] * self._page  # statm: size resident shared text lib data dt
        try:
            return self._process.memory_info().rss
        except psutil.Error:
            return None

    def max_temperature_c(self) -> float | None:
        """The hottest plausible sensor (hwmon and thermal zones, millidegrees C)."""
        if not self._temps:
            return _psutil_max_temperature_c() if not _is_linux() else None
        lo, hi = _TEMP_RANGE_C
        values = [v / 1000 for p in self._temps if (v := KEPT.read_int(p)) is not None]
        values = [v for v in values if lo < v < hi]
        return max(values) if values else None

    def cpu_mhz(self) -> float | None:
        """The mean current clock over CPUs (cpufreq, kHz), as psutil.cpu_freq reports it."""
        khz = [v for p in self._clocks if (v := KEPT.read_int(p)) is not None]
        if khz:
            return sum(khz) / len(khz) / 1000
        try:  # no cpufreq (VMs, some ARM boards): psutil parses /proc/cpuinfo
            freq = psutil.cpu_freq()
        except Exception:  # noqa: BLE001 - absent or odd cpufreq drivers must not stop sampling
            return None
        return float(freq.current) if freq and freq.current else None


    def gpu_mhz(self) -> float | None:
        """The GPU's current clock (devfreq cur_freq or amdgpu freq1_input, both Hz); None if
        no GPU clock is exposed. Several (Thor's GPCs, two cards): the fastest."""
        hz = [v for p in self._gpu_clocks if (v := KEPT.read_int(p)) is not None]
        return max(hz) / 1e6 if hz else None


def _gpu_clock_files(sys_: Path) -> list[Path]:
    """The integrated GPU's devfreq entry (Jetson, named by its device-tree node, or Thor's
    gpu-gpc-N) and amdgpu's shader clock (hwmon freq1_input, labelled sclk)."""
    found: list[Path] = []
    for entry in _listdir(sys_ / "class" / "devfreq"):
        of_name = read_str(entry / "device" / "of_node" / "name")
        if of_name in GPU_OF_NAMES or entry.name.startswith("gpu-gpc") or (
            of_name is None and entry.name.split(".")[-1] in GPU_OF_NAMES
        ):
            found.append(entry / "cur_freq")
    for hwmon in _listdir(sys_ / "class" / "hwmon"):
        if read_str(hwmon / "name") == "amdgpu" and (hwmon / "freq1_input").exists():
            found.append(hwmon / "freq1_input")
    return found


def _listdir(d: Path) -> list[Path]:
    try:
        return sorted(d.iterdir())
    except OSError:
        return []


def _is_linux() -> bool:
    return os.uname().sysname == "Linux" if hasattr(os, "uname") else False


def _psutil_max_temperature_c() -> float | None:
    read = getattr(psutil, "sensors_temperatures", None)  # absent on macOS and Windows
    if read is None:
        return None
    try:
        sensors = read()
    except Exception:  # noqa: BLE001 - an odd driver must not stop sampling
        return None
    lo, hi = _TEMP_RANGE_C
    values = [
        e.current
        for entries in sensors.values()
        for e in entries
        if e.current is not None and lo < e.current < hi
    ]
    return max(values) if values else None


PEAK_RSS_SINCE_LOAD = "this process's peak RSS (kernel VmHWM) from before the model loaded"
PEAK_RSS_LIFETIME = ("this process's peak RSS over its whole life (kernel VmHWM; its mark "
                     "could not be reset at the run's start)")


def reset_peak_rss() -> str:
    """Restart the kernel's peak-RSS mark from the current RSS (Linux >= 4.0: writing 5 to
    /proc/self/clear_refs), so a run's peak is its own even when an earlier run in the same
    process used more. Returns what the peak read at the end will cover."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return PEAK_RSS_LIFETIME
    return PEAK_RSS_SINCE_LOAD


def peak_rss_bytes() -> int | None:
    """VmHWM of this process (None where /proc/self/status has none: not Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
