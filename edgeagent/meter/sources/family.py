"""What every power-source family provides: sources with provenance, and the reasons others
are unavailable.

A family module (rapl, jetson, battery, nvml, hwmon, rpi, apple, estimate) exposes
`discover(root: Path = Path("/")) -> Discovery`, reading only below `root` so tests can point it
at a fixture tree. A source satisfies `meter.energy.PowerSource` (read_watts) or
`meter.energy.EnergyCounter` (read_joules, wrap_joules) and carries a `SourceInfo`. A read that
fails (file gone, permission revoked, NotSupported) returns None: the sampler records a gap,
and attribution turns a gap into null with a reason, never a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

SCOPES = (
    "cpu-package",  # RAPL package
    "cpu-core",  # RAPL core / PP0
    "dram",  # RAPL dram
    "psys",  # RAPL platform (SoC + more on laptops)
    "soc",  # a SoC rail sum without the module input
    "module-input",  # Jetson VDD_IN / POM_5V_IN: everything the module draws
    "board",  # a board-level total (Raspberry Pi PMIC sum, Apple "Combined", Jetson Thor VIN)
    "gpu",  # a GPU's own draw (NVML, amdgpu hwmon)
    "battery-system",  # a discharging laptop battery: the whole system on battery
    "estimated",  # CPU utilisation x declared TDP: an estimate, never a measurement
)


@dataclass(frozen=True)
class SourceInfo:
    family: str  # rapl | jetson | battery | nvml | hwmon | rpi | apple | estimate
    name: str  # unique and stable, e.g. "rapl:package-0", "jetson:VDD_IN"
    scope: str  # one of SCOPES
    rail: str | None  # the zone or rail as the device names it
    unit: str  # "W" (instantaneous power) or "J" (cumulative counter)
    kind: str  # "power" | "counter"
    path: str | None  # the file or command it is read from
    note: str | None = None  # e.g. "total = sum of rails (no VDD_IN on this board)"


@dataclass(frozen=True)
class Unavailable:
    family: str
    name: str  # what would have been read, e.g. "rapl:package-0"
    reason: str  # "not present" | "permission denied" | "not discharging" | ...
    fix: str | None = None  # how the user can make it available


class Described:
    """A source's name and scope are those of its SourceInfo: each source states them once."""

    info: SourceInfo

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def scope(self) -> str:
        return self.info.scope


class MeteredSource(Protocol):
    info: SourceInfo
    name: str
    scope: str


@dataclass(frozen=True)
class Discovery:
    sources: tuple[MeteredSource, ...] = ()
    unavailable: tuple[Unavailable, ...] = ()
