"""Power and energy sensors in the generic hwmon class (/sys/class/hwmon/hwmon*/).

Per the kernel's hwmon sysfs interface, `power<N>_input` is instantaneous µW,
`power<N>_average` is µW averaged over `power<N>_average_interval` ms, and `energy<N>_input` is
a cumulative µJ counter; `<kind><N>_label` names the channel. Each channel becomes one source:
a `PowerSource` in W or an `EnergyCounter` in J. Old-style drivers (acpi_power_meter) keep
their attributes in hwmonN/device/ instead, where libsensors also looks.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from edgeagent.meter.sources import jetson
from edgeagent.meter.sources.family import Described, Discovery, SourceInfo, Unavailable
from edgeagent.meter.sources.reading import KEPT

FAMILY = "hwmon"

# Chips another family reads with more context than a bare hwmon channel has: the Jetson
# INA3221 needs its rail labels paired with voltage x current (VDD_IN is the total).
LEFT_TO_OTHER_FAMILIES = {"ina3221": "jetson", "ina3221x": "jetson"}

NOT_PRESENT = Unavailable(
    family=FAMILY,
    name=FAMILY,
    reason="not present (no /sys/class/hwmon power or energy sensors)",
)

# Graphics drivers whose hwmon chips measure the GPU alone (sysfs-driver-intel-i915-hwmon and
# -xe-hwmon: "i915"/"xe" is the whole card, "i915_gtN"/"xe_gtN" one GT inside it; nouveau:
# the board's power sensor). Left at the default "board" scope, a card would pass for the
# machine and be chosen as the device total on a desktop where RAPL is root-only.
_GPU_CHIP_RE = re.compile(r"^(?:i915|xe)(?:_gt\d+)?$|^nouveau$")

_POWER_RE = re.compile(r"^power(\d+)_(input|average)$")
_ENERGY_RE = re.compile(r"^energy(\d+)_input$")


@dataclass(frozen=True)
class HwmonPower(Described):
    """One hwmon power channel (a `PowerSource`)."""

    info: SourceInfo
    path: Path

    def read_watts(self) -> float | None:
        uw = KEPT.read_int(self.path)  # sensor gone (unplugged, driver unbound), busy: a gap
        return None if uw is None else uw / 1e6


@dataclass(frozen=True)
class HwmonEnergy(Described):
    """One hwmon energy channel (an `EnergyCounter`)."""

    info: SourceInfo
    path: Path
    # The hwmon ABI gives no range for energy*_input; drivers keep it 64-bit, so a counter
    # that goes backwards is a reset (counter_delta then gives null), never a wrap.
    wrap_joules: float | None = None

    def read_joules(self) -> float | None:
        uj = KEPT.read_int(self.path)
        return None if uj is None else uj / 1e6


@dataclass(frozen=True)
class _Channel:
    kind: str  # "power" | "energy"
    index: int
    path: Path  # the file read: power<N>_input, else power<N>_average; energy<N>_input
    label: str | None


@dataclass(frozen=True)
class _Chip:
    chip: str  # the hwmon `name`, e.g. "amdgpu"
    device: str  # what the hwmon hangs off, e.g. "0000:03:00.0"; names same-named chips apart
    channels: tuple[_Channel, ...]


def discover(root: Path = Path("/")) -> Discovery:
    """Every hwmon power and energy channel below root (except other families' chips)."""
    claimed = jetson.claimed_hwmon_dirs(root)  # Thor's INA238 VIN is the Jetson total
    chips = [c for c in (_read_chip(d, claimed) for d in _hwmon_dirs(root)) if c and c.channels]
    if not chips:
        return Discovery(unavailable=(NOT_PRESENT,))
    repeated = {n for n, k in Counter(c.chip for c in chips).items() if k > 1}

    sources: list[HwmonPower | HwmonEnergy] = []
    unavailable: list[Unavailable] = []
    for c in chips:
        prefix = f"{FAMILY}:{c.chip}@{c.device}" if c.chip in repeated else f"{FAMILY}:{c.chip}"
        for ch in c.channels:
            name = f"{prefix}/{ch.kind}{ch.index}"
            scope, notes = _scope(c.chip, ch)
            probe = _probe(ch.path)
            if probe == "denied":
                fix = f"sudo chmod a+r {ch.path} (until reboot; a udev rule makes it last)"
                unavailable.append(Unavailable(FAMILY, name, "permission denied", fix))
                continue
            if probe is not None:
                # Kept: a sensor that fails now (a runtime-suspended GPU, a busy bus) may
                # read later, and a read that fails during the run is a gap, not a number.
                notes.append(f"unreadable at discovery ({probe})")
            info = SourceInfo(
                family=FAMILY,
                name=name,
                scope=scope,
                rail=ch.label or f"{ch.kind}{ch.index}",
                unit="W" if ch.kind == "power" else "J",
                kind="power" if ch.kind == "power" else "counter",
                path=str(ch.path),
                note="; ".join(notes) or None,
            )
            if ch.kind == "power":
                sources.append(HwmonPower(info=info, path=ch.path))
            else:
                sources.append(HwmonEnergy(info=info, path=ch.path))
    return Discovery(sources=tuple(sources), unavailable=tuple(unavailable))


def _hwmon_dirs(root: Path) -> list[Path]:
    class_dir = root / "sys" / "class" / "hwmon"
    try:
        entries = [p for p in class_dir.iterdir() if re.fullmatch(r"hwmon\d+", p.name)]
    except OSError:
        return []
    return sorted(entries, key=lambda p: int(p.name[5:]))


def _read_chip(hwmon_dir: Path, claimed: frozenset[Path] = frozenset()) -> _Chip | None:
    try:
        real = hwmon_dir.resolve()
        attrs = _attribute_dir(real)
        chip = _read_text(attrs / "name")
        files = sorted(p.name for p in attrs.iterdir())
    except (OSError, RuntimeError):
        # Gone between listing and reading, not a hwmon dir, or a symlink loop (which
        # Python before 3.13 reports as RuntimeError): skip this one entry only.
        return None
    if chip in LEFT_TO_OTHER_FAMILIES or real in claimed:
        return None

    power: dict[int, dict[str, str]] = {}
    energy: list[int] = []
    for f in files:
        if m := _POWER_RE.match(f):
            power.setdefault(int(m.group(1)), {})[m.group(2)] = f
        elif m := _ENERGY_RE.match(f):
            energy.append(int(m.group(1)))

    channels: list[_Channel] = []
    for n in sorted(power):
        # One source per channel: the instantaneous value where the driver has it (amdgpu
        # 6.6+ adds power1_input beside the older power1_average), else the average.
        chosen = power[n].get("input") or power[n]["average"]
        channels.append(_Channel("power", n, attrs / chosen, _label(attrs, f"power{n}")))
    for n in sorted(energy):
        channels.append(
            _Channel("energy", n, attrs / f"energy{n}_input", _label(attrs, f"energy{n}"))
        )
    return _Chip(chip, _device_id(real), tuple(channels))


def _attribute_dir(real: Path) -> Path:
    """Where a chip's attributes live: hwmonN itself, or hwmonN/device for old-style drivers.

    acpi_power_meter (ACPI 4.0 power meters: servers, NVIDIA Grace) still registers with
    hwmon_device_register() and creates name and power1_average on the ACPI device, so its
    hwmonN has no name file; libsensors reads such chips from hwmonN/device, and so do we.
    """
    if not (real / "name").exists() and (real / "device" / "name").exists():
        return real / "device"
    return real


def _device_id(real: Path) -> str:
    # hwmon dirs live at <device>/hwmon/hwmonN; chips without a device sit under
    # /sys/devices/virtual/hwmon, where only hwmonN tells them apart.
    if real.parent.name == "hwmon" and real.parent.parent.name != "virtual":
        return real.parent.parent.name
    return real.name


def _label(attrs: Path, stem: str) -> str | None:
    # acpi_power_meter has no *_label; its OEM string (power1_oem_info, e.g. "Grace Power
    # Socket 0") is what tells one meter from another.
    for suffix in ("_label", "_oem_info"):
        try:
            label = _read_text(attrs / f"{stem}{suffix}")
        except OSError:
            continue
        if label:
            return label
    return None


def _scope(chip: str, ch: _Channel) -> tuple[str, list[str]]:
    """The SCOPES entry a channel measures, and notes on what it covers."""
    notes: list[str] = []
    if ch.path.name.endswith("_average"):
        notes.append(_average_note(ch))
    if chip == "amdgpu":
        return "gpu", ["amdgpu SoC power (on an APU it includes the CPU)", *notes]
    if _GPU_CHIP_RE.match(chip):
        return "gpu", [f"{chip}: the graphics card's own draw, not the system's", *notes]
    if chip == "amd_energy" and ch.label:
        if ch.label.startswith("Esocket"):
            return "cpu-package", [
                "the same socket energy as rapl:package-* on kernels with AMD RAPL; never "
                "add the two",
                *notes,
            ]
        if ch.label.startswith("Ecore"):
            return "cpu-core", ["one core, inside this chip's Esocket counter; never add to it"]
    return "board", [
        f"scope assumed: the sensor doc names none for {chip!r}; it measures whatever rail "
        "the sensor is wired to",
        *notes,
    ]


def _average_note(ch: _Channel) -> str:
    try:
        interval_ms = _read_int(ch.path.with_name(f"power{ch.index}_average_interval"))
    except (OSError, ValueError):
        return "a running average (no instantaneous power file)"
    return f"a running average over {interval_ms} ms (no instantaneous power file)"


def _probe(path: Path) -> str | None:
    """None if path reads as a number now; "denied" if the file's mode keeps us out;
    otherwise why the read failed."""
    try:
        _read_int(path)
    except PermissionError as e:
        # hwmon files are world-readable as a rule, so EPERM on a readable file comes from
        # the driver (amdgpu answers EPERM while the GPU is runtime-suspended or in reset).
        if not os.access(path, os.R_OK):
            return "denied"
        return e.strerror or "operation not permitted"
    except OSError as e:
        return e.strerror or str(e)
    except ValueError:
        return "not a number"
    return None


def _read_text(path: Path) -> str:
    # builtins.open rather than Path.read_text: tests simulate unreadable files by patching
    # open, since they run as root.
    with open(path) as f:
        return f.read().strip()


def _read_int(path: Path) -> int:
    return int(_read_text(path))
