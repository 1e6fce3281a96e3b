"""Laptop battery discharge power (docs/power-sensors.md section 3).

On battery the whole system runs from it, so its discharge power is system power. Units:
`power_now` µW; `voltage_now` µV; `current_now` µA. The ACPI driver exposes either
`power_now` or `current_now`, never both, and reports them unsigned, so P = power_now / 1e6
or voltage_now x |current_now| / 1e12.

The value means system power only while `status` is Discharging: on AC it is the charge
rate, or 0. A battery that is not discharging at discovery is still a source (the charger
can be unplugged mid-run) but is also listed as unavailable with the reason; every read
re-checks the status and returns None unless it is Discharging.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from edgeagent.meter.sources.family import (
    Described,
    Discovery,
    MeteredSource,
    SourceInfo,
    Unavailable,
)
from edgeagent.meter.sources.reading import KEPT, probe_int, read_str

FAMILY = "battery"
SCOPE = "battery-system"
DISCHARGING = "Discharging"

# ACPI caches readings for 1 s and embedded controllers refresh every few seconds, so
# sampling faster only repeats values: a battery wants an interval of at least this.
MIN_INTERVAL_S = 1.0

UNPLUG_FIX = "unplug the charger to measure on battery"

# Supplies that feed the machine from outside (sysfs-class-power `type`): an AC adapter, a
# USB or USB-C PD charger (UCSI reports online while the port sinks power), a wireless pad.
# Older kernels spell USB chargers USB_C, USB_PD, USB_DCP, ...; `online` is 0, 1 or 2
# (programmable). A battery can report Discharging while one of them is online (a charger
# too weak for the load, or firmware that tops up from both), and then its discharge is
# only part of what the machine draws.
EXTERNAL_TYPES = ("Mains", "USB", "Wireless")
PERMISSION_FIX = "run as root, or make the power_supply files readable"
TIMING_NOTE = (
    "valid only while status is Discharging and no AC/USB supply is online; values update "
    "slowly (ACPI caches 1 s, the EC refreshes every few s), so sample at >= 1 s"
)


@dataclass(frozen=True)
class BatterySource(Described):
    """One battery's discharge power; None whenever it is not discharging."""

    info: SourceInfo
    supply: Path  # /sys/class/power_supply/BATn
    power_path: Path | None  # power_now (µW); None: voltage_now x current_now instead
    external: tuple[Path, ...] = ()  # AC/USB supplies: while one is online, not the system

    def status(self) -> str | None:
        return read_str(self.supply / "status")

    def read_watts(self) -> float | None:
        # Status is re-read every time: the charger can be plugged in or out mid-run.
        if self.status() != DISCHARGING or external_online(self.external):
            return None
        pw = self.discharge_picowatts()
        return None if pw is None else pw / 10**12

    def discharge_picowatts(self) -> int | None:
        """Discharge power in pW whatever the status; None if the read fails or reads 0.

        Integer picowatts (µW x 1e6, or µV x µA) keep the single division to watts exact.
        """
        if self.power_path is not None:
            uw = KEPT.read_int(self.power_path)
            pw = None if uw is None else abs(uw) * 10**6  # psutil: abs(power_now)
        else:
            uv = KEPT.read_int(self.supply / "voltage_now")
            ua = KEPT.read_int(self.supply / "current_now")
            pw = None if uv is None or ua is None else abs(uv * ua)  # ACPI: unsigned
        # A discharging battery feeding a running system cannot deliver 0 W: some firmware
        # reports 0 until the EC refreshes after unplugging, which is a gap, not a reading.
        return pw or None


@dataclass(frozen=True)
class BatteryTotal(Described):
    """System power on a machine with several batteries: the sum of the discharging ones."""

    info: SourceInfo
    batteries: tuple[BatterySource, ...]

    def read_watts(self) -> float | None:
        statuses = [b.status() for b in self.batteries]
        # Any battery charging means the machine is on AC; none discharging means the same.
        if DISCHARGING not in statuses or "Charging" in statuses:
            return None
        if external_online(self.batteries[0].external):
            return None
        total = 0
        for battery, status in zip(self.batteries, statuses, strict=True):
            if status != DISCHARGING:
                continue  # an idle second battery supplies nothing
            pw = battery.discharge_picowatts()
            if pw is None:  # a partial sum would understate the system: a gap
                return None
            total += pw
        return total / 10**12


def _supplies(root: Path) -> list[Path]:
    try:
        return sorted((root / "sys" / "class" / "power_supply").iterdir())
    except OSError:
        return []


def _batteries(root: Path) -> list[Path]:
    """System batteries under root: type Battery, not a peripheral's (scope Device), and
    present (a driver may keep an empty bay's supply with present 0)."""
    return [
        d
        for d in _supplies(root)
        if read_str(d / "type") == "Battery"
        # Mice and headsets report type Battery with scope Device: not the system's power.
        and read_str(d / "scope") != "Device"
        and read_str(d / "present") != "0"
    ]


def _external_supplies(root: Path) -> tuple[Path, ...]:
    """The `online` files of the supplies that can power the machine from outside."""
    out = []
    for d in _supplies(root):
        kind = read_str(d / "type") or ""
        if not (kind in EXTERNAL_TYPES or kind.startswith("USB_")):
            continue
        if read_str(d / "scope") != "Device" and (d / "online").exists():
            out.append(d / "online")
    return tuple(out)


def external_online(online_files: tuple[Path, ...]) -> Path | None:
    """The first external supply reading online now, or None (an unreadable file counts as
    offline: the battery status still says Discharging)."""
    for f in online_files:
        value = KEPT.read_int(f)
        if value:  # 1: online, 2: online programmable (USB PD PPS)
            return f
    return None


def _battery_source(
    supply: Path, note: str, external: tuple[Path, ...] = ()
) -> BatterySource | Unavailable:
    name = f"{FAMILY}:{supply.name}"
    power_now = supply / "power_now"
    if power_now.exists():
        files, power_path, how = [power_now], power_now, "power_now (µW)"
    elif (supply / "voltage_now").exists() and (supply / "current_now").exists():
        files = [supply / "voltage_now", supply / "current_now"]
        power_path, how = None, "voltage_now (µV) x current_now (µA)"
    else:
        return Unavailable(FAMILY, name, "no power_now, nor voltage_now and current_now")
    for f in files:
        why = probe_int(f)
        if why is not None:
            fix = PERMISSION_FIX if why == "permission denied" else None
            return Unavailable(FAMILY, name, f"{why}: {f}", fix)
    if read_str(supply / "status") is None:
        return Unavailable(FAMILY, name, "status unreadable: cannot tell discharging from AC")
    info = SourceInfo(
        family=FAMILY,
        name=name,
        scope=SCOPE,
        rail=supply.name,
        unit="W",
        kind="power",
        path=str(files[0]),
        note=f"{how}; {note}",
    )
    return BatterySource(info, supply, power_path, external)


def discover(root: Path = Path("/")) -> Discovery:
    """Every system battery as a source; the not-discharging ones also listed with why."""
    supplies = _batteries(root)
    if not supplies:
        return Discovery(unavailable=(Unavailable(FAMILY, FAMILY, "not present"),))
    several = len(supplies) > 1
    external = _external_supplies(root)
    sources: list[BatterySource] = []
    unavailable: list[Unavailable] = []
    for supply in supplies:
        note = TIMING_NOTE
        if several:
            note = f"one of {len(supplies)} batteries, see {FAMILY}:total; {note}"
        found = _battery_source(supply, note, external)
        if isinstance(found, Unavailable):
            unavailable.append(found)
            continue
        sources.append(found)
        reason = _not_system_power(found)
        if reason is not None:
            # Still a source: unplugging mid-run makes its reads valid.
            unavailable.append(Unavailable(FAMILY, found.name, reason, UNPLUG_FIX))
    out: list[MeteredSource] = list(sources)
    if several and len(sources) == len(supplies):
        info = SourceInfo(
            family=FAMILY,
            name=f"{FAMILY}:total",
            scope=SCOPE,
            rail=None,
            unit="W",
            kind="power",
            path=None,
            note=f"sum of the discharging batteries; {TIMING_NOTE}",
        )
        out.insert(0, BatteryTotal(info, tuple(sources)))
    elif several:
        # Without every battery the system draw cannot be summed.
        reason = "a battery is unavailable, so the system draw cannot be summed"
        unavailable.append(Unavailable(FAMILY, f"{FAMILY}:total", reason))
    return Discovery(sources=tuple(out), unavailable=tuple(unavailable))


def _not_system_power(source: BatterySource) -> str | None:
    """Why the battery's discharge is not the system's draw now, or None if it is."""
    status = source.status()
    if status != DISCHARGING:
        return f"not discharging (status: {status})"
    online = external_online(source.external)
    if online is not None:
        return f"external power online ({online.parent.name}): the battery is not the only supply"
    return None


def primary_source(discovery: Discovery) -> MeteredSource | None:
    """System power on battery: the total where there are several batteries, else the one."""
    batteries = [s for s in discovery.sources if s.info.family == FAMILY]
    total = next((s for s in batteries if s.name == f"{FAMILY}:total"), None)
    if total is not None:
        return total
    if any(u.name == f"{FAMILY}:total" for u in discovery.unavailable):
        return None  # one of several batteries is not the whole system
    return batteries[0] if len(batteries) == 1 else None
