"""NVIDIA Jetson power rails from the INA3221 monitors (docs/power-sensors.md section 2).

Two driver layouts exist and both are read:

- JetPack 4 (out-of-tree IIO driver, i2c name `ina3221x`): `<dev>/iio:deviceN/` (TX2:
  `<dev>/iio_device/`), 0-based channels, `rail_name_N` and `in_powerN_input` in mW.
- JetPack 5 and later (mainline hwmon driver, i2c name `ina3221`): `<dev>/hwmon/hwmonN/`,
  1-based channels, `inK_label`, `inK_input` (mV) and `currK_input` (mA); there is no power
  file, so power = mV x mA. Channels labelled NC (disabled on the board) and the
  "sum of shunt voltages" channel 7 are skipped.

Every rail is a source "jetson:<RAIL>". The device total is, in this order: the carrier
board's input monitor where there is one (AGX Thor: an INA238 labelled VIN, module and
carrier); the module input rail (VDD_IN or POM_5V_IN, which excludes the carrier board);
otherwise (AGX Orin, AGX Xavier) the sum of the rails, labelled as such, leaving out a rail
NVIDIA documents as inside another one (AGX Orin: VDDQ_VDD2_1V8AO is in VIN_SYS_5V0).
`primary_source` returns it.

Rails are read as integer microwatts (mW x 1000, or mV x mA) so a sum of rails is exact
before the single division to watts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from edgeagent.meter.sources.family import (
    Described,
    Discovery,
    MeteredSource,
    SourceInfo,
    Unavailable,
)
from edgeagent.meter.sources.reading import KEPT, probe_int, read_int, read_str

FAMILY = "jetson"

# The rails that carry everything the module draws (jtop `total_power`). Zeus's looser
# substring match (`_in`, `system`, `total`) is not used: it would also catch rails that are
# not the module input.
MODULE_INPUT_RAILS = ("VDD_IN", "POM_5V_IN")

# The INA3221 has three channels; on hwmon, channel 7 is "sum of shunt voltages" (µV) and
# curr4 its summed current, neither of which is a rail.
HWMON_CHANNELS = (1, 2, 3)
HWMON_SUM_CHANNEL = 7

# Rails another rail of the same board already contains, which a sum of rails must leave out.
# NVIDIA's Jetson Linux Developer Guide, AGX Orin power monitors: VIN_SYS_5V0 supplies the
# system 5 V IOs, and "VDDQ_VDD2_1V8AO power is also included in VIN_SYS_5V0 power".
NESTED_RAILS = {"VDDQ_VDD2_1V8AO": "VIN_SYS_5V0"}

# Jetson AGX Thor adds an INA238 on the carrier board that measures VIN, the whole device's
# input (module and carrier), beside the module's INA3221 rails (VDD_GPU, VDD_CPU_SOC_MSS,
# VIN_SYS_5V0); jtop (PR #900) reports it as the total. Its hwmon power1_input is µW.
BOARD_INPUT_CHIPS = ("ina238",)
BOARD_INPUT_RAILS = ("VIN",)
BOARD_INPUT_NOTE = "whole-device input power (module and carrier board); power1_input (µW)"

SUM_NOTE = "sum of rails (no module input rail on this board)"
MODULE_INPUT_NOTE = "module input power (excludes the carrier board)"
PERMISSION_FIX = "run as root, or make the INA3221 sysfs files readable (chmod a+r or a udev rule)"

# GPU nodes as the device tree names them (Nano/TX: gpu, Xavier: gv11b, Orin: ga10b).
GPU_OF_NAMES = ("gpu", "ga10b", "gv11b")
# Fallbacks when no devfreq entry names the GPU (docs section 2, "Hard-coded variants").
GPU_LOAD_PATHS = (
    "sys/devices/gpu.0/load",
    "sys/devices/17000000.gv11b/load",
    "sys/devices/17000000.ga10b/load",
    "sys/devices/platform/bus@0/17000000.gpu/load",
    "sys/devices/platform/gpu.0/load",
)

_I2C_DEVICE = re.compile(r"^\d+-[0-9a-fA-F]{4}$")  # "<bus>-<addr>", e.g. 6-0040
_IIO_RAIL = re.compile(r"^rail_name_(\d+)$")
_RELEASE = re.compile(r"R(\d+)\s*\(release\),\s*REVISION:\s*([0-9.]+)")
_POWER_MODEL = re.compile(r"<\s*POWER_MODEL\s+ID=(\d+)\s+NAME=([^\s>]+)")
_PM_DEFAULT = re.compile(r"<\s*PM_CONFIG\s+DEFAULT=(\d+)\s*>")
_PMODE = re.compile(r"pmode:\s*(\d+)")


# --- sources -------------------------------------------------------------------------------


@dataclass(frozen=True)
class IioRail(Described):
    """A JetPack 4 rail: the driver computes power itself (in_powerN_input, mW)."""

    info: SourceInfo
    power_path: Path

    def read_microwatts(self) -> int | None:
        mw = KEPT.read_int(self.power_path)
        return None if mw is None else mw * 1000

    def read_watts(self) -> float | None:
        uw = self.read_microwatts()
        return None if uw is None else uw / 1e6


@dataclass(frozen=True)
class HwmonRail(Described):
    """A JetPack 5+ rail: power = bus voltage (inK_input, mV) x current (currK_input, mA)."""

    info: SourceInfo
    voltage_path: Path
    current_path: Path

    def read_microwatts(self) -> int | None:
        mv = KEPT.read_int(self.voltage_path)
        ma = KEPT.read_int(self.current_path)
        if mv is None or ma is None:
            return None
        return mv * ma  # mV x mA = µW

    def read_watts(self) -> float | None:
        uw = self.read_microwatts()
        return None if uw is None else uw / 1e6


Rail = IioRail | HwmonRail


@dataclass(frozen=True)
class RailSum(Described):
    """The board total where there is no module input rail: the sum of every rail."""

    info: SourceInfo
    rails: tuple[Rail, ...]

    def read_watts(self) -> float | None:
        total = 0
        for rail in self.rails:
            uw = rail.read_microwatts()
            if uw is None:  # a partial sum would understate the draw: a gap, not a number
                return None
            total += uw
        return total / 1e6


@dataclass(frozen=True)
class BoardInputRail(Described):
    """A one-channel monitor of the whole device's input (Thor's INA238 VIN), in µW."""

    info: SourceInfo
    power_path: Path

    def read_watts(self) -> float | None:
        uw = KEPT.read_int(self.power_path)
        return None if uw is None else uw / 1e6


# --- discovery -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Channel:
    """One labelled INA3221 channel found on disk, before it is checked readable."""

    device: str  # i2c device, e.g. "1-0040"
    rail: str
    files: tuple[Path, ...]  # the files a read needs (power, or voltage and current)


def _ina3221_devices(root: Path) -> list[Path]:
    """INA3221 i2c device directories, each once (the doc's two discovery roots)."""
    found: dict[str, Path] = {}
    i2c = root / "sys" / "bus" / "i2c"
    # jtop: any i2c device whose name contains ina3221 (ina3221x on JetPack 4).
    for dev in _listdir(i2c / "devices"):
        name = read_str(dev / "name")
        if name and "ina3221" in name:
            found.setdefault(dev.name, dev)
    # Zeus / alumet: devices bound to either driver.
    for driver in ("ina3221x", "ina3221"):
        for dev in _listdir(i2c / "drivers" / driver):
            if _I2C_DEVICE.match(dev.name) and dev.is_dir():
                # Keyed by "<bus>-<addr>", unique per system: the same device reached through
                # both roots (symlinks, or a copied tree) is counted once.
                found.setdefault(dev.name, dev)
    return [found[k] for k in sorted(found)]


def _listdir(path: Path) -> list[Path]:
    try:
        return sorted(path.iterdir())
    except OSError:
        return []


def _is_not_connected(label: str) -> bool:
    # jtop drops labels containing "NC"; matched as a whole word here so a rail whose name
    # merely contains the letters (e.g. "VDD_SYNC") is kept.
    return "NC" in re.split(r"[^A-Za-z0-9]+", label.upper())


def _iio_channels(device: Path) -> Iterator[_Channel]:
    data_dirs = [d for d in _listdir(device) if d.name.startswith(("iio:device", "iio_device"))]
    for data in data_dirs:
        for f in _listdir(data):
            m = _IIO_RAIL.match(f.name)
            if not m:
                continue
            n = m.group(1)
            rail = read_str(f)
            if rail is None or _is_not_connected(rail):
                continue
            yield _Channel(device.name, rail, (data / f"in_power{n}_input",))


def _hwmon_channels(device: Path) -> Iterator[_Channel]:
    for hwmon in _listdir(device / "hwmon"):
        if not hwmon.name.startswith("hwmon"):
            continue
        for k in HWMON_CHANNELS:
            label_path = hwmon / f"in{k}_label"
            volt, curr = hwmon / f"in{k}_input", hwmon / f"curr{k}_input"
            # The doc: always require both the label and the current file.
            if not label_path.exists() or not curr.exists():
                continue
            label = read_str(label_path)
            if label is None or _is_not_connected(label) or label.lower().startswith("sum of"):
                continue
            yield _Channel(device.name, label, (volt, curr))


def _source_info(
    channel: _Channel, name: str, is_input: bool, container: str | None = None
) -> SourceInfo:
    first = channel.files[0]
    notes = [MODULE_INPUT_NOTE] if is_input else []
    if container is not None:
        notes.append(f"inside {container} (NVIDIA: included in its power); never add to it")
    if len(channel.files) == 2:
        k = first.name[2:].split("_")[0]
        notes.append(f"in{k}_input (mV) x curr{k}_input (mA)")
    note = "; ".join(notes) or None
    return SourceInfo(
        family=FAMILY,
        name=name,
        scope="module-input" if is_input else "soc",
        rail=channel.rail,
        unit="W",
        kind="power",
        path=str(first),
        note=note,
    )


def discover(root: Path = Path("/")) -> Discovery:
    """Every readable INA3221 rail below root, the board total first; reasons for the rest."""
    devices = _ina3221_devices(root)
    if not devices:
        return Discovery(unavailable=(Unavailable(FAMILY, FAMILY, "not present"),))
    channels = [c for dev in devices for c in (*_iio_channels(dev), *_hwmon_channels(dev))]
    if not channels:
        reason = "INA3221 found but no labelled rails"
        return Discovery(unavailable=(Unavailable(FAMILY, FAMILY, reason),))

    present = {c.rail for c in channels}
    # One input rail is the total (VDD_IN before POM_5V_IN, should a board have both).
    input_rail = next((r for r in MODULE_INPUT_RAILS if r in present), None)
    rails, missing = _probe_rails(channels, input_rail, present)
    unavailable = [u for _, u in missing]
    board = _board_input(root)
    if isinstance(board, Unavailable):
        unavailable.append(board)

    total: MeteredSource | None
    if isinstance(board, BoardInputRail):
        total = board  # the whole device's input: wider than any module rail or their sum
    elif board is not None:
        total = None
        reason = f"board input rail {board.name.split(':', 1)[1]} unavailable"
        unavailable.append(Unavailable(FAMILY, f"{FAMILY}:total", reason))
    else:
        total, why_not = _module_total(rails, missing, input_rail)
        if why_not is not None:
            unavailable.append(Unavailable(FAMILY, f"{FAMILY}:total", why_not))
    # The total first, so a caller taking the first source gets the board figure.
    others = [r for r in rails if r is not total]
    sources: tuple[MeteredSource, ...] = (total, *others) if total is not None else tuple(others)
    return Discovery(sources=sources, unavailable=tuple(unavailable))


def _probe_rails(
    channels: list[_Channel], input_rail: str | None, present: set[str]
) -> tuple[list[Rail], list[tuple[_Channel, Unavailable]]]:
    """Each channel as a readable rail, or with the reason it cannot be read."""
    rails: list[Rail] = []
    missing: list[tuple[_Channel, Unavailable]] = []
    taken: set[str] = set()
    for ch in channels:
        name = f"{FAMILY}:{ch.rail}"
        if name in taken:  # the same label on two chips: keep both, told apart by device
            name = f"{name}@{ch.device}"
        taken.add(name)
        problems = [(f, why) for f in ch.files if (why := probe_int(f)) is not None]
        if problems:
            path, why = problems[0]
            fix = PERMISSION_FIX if why == "permission denied" else None
            missing.append((ch, Unavailable(FAMILY, name, f"{why}: {path}", fix)))
            continue
        is_input = ch.rail == input_rail and not _has_input(rails)
        info = _source_info(ch, name, is_input, _container(ch.rail, present))
        if len(ch.files) == 1:
            rails.append(IioRail(info, ch.files[0]))
        else:
            rails.append(HwmonRail(info, ch.files[0], ch.files[1]))
    return rails, missing


def _container(rail: str, present: set[str]) -> str | None:
    """The rail on this board that already contains rail, if the board has it."""
    parent = NESTED_RAILS.get(rail)
    return parent if parent in present else None


def _module_total(
    rails: list[Rail], missing: list[tuple[_Channel, Unavailable]], input_rail: str | None
) -> tuple[MeteredSource | None, str | None]:
    """The module input rail, else the sum of the rails that nest in no other; or why none."""
    total = next((r for r in rails if r.scope == "module-input"), None)
    if total is not None:
        return total, None
    if input_rail is not None:
        # The rails without the input would be a SoC subset presented as the board: no total.
        return None, f"module input rail {input_rail} unavailable"
    readable = {r.info.rail for r in rails}
    # A rail missing inside a readable container is counted by that container already.
    gaps = [u.name for ch, u in missing if NESTED_RAILS.get(ch.rail) not in readable]
    if gaps:
        # Summing only the readable rails would understate the board: no total either.
        return None, f"sum of rails incomplete ({', '.join(gaps)} unavailable)"
    if not rails:
        return None, None
    summed = tuple(r for r in rails if NESTED_RAILS.get(r.info.rail or "") not in readable)
    left_out = [r.info.rail for r in rails if r not in summed]
    note = SUM_NOTE
    if left_out:
        inside = ", ".join(f"{rail} (inside {NESTED_RAILS[rail]})" for rail in left_out if rail)
        note = f"{note}; left out as already counted: {inside}"
    info = SourceInfo(
        family=FAMILY,
        name=f"{FAMILY}:total",
        scope="soc",
        rail=None,
        unit="W",
        kind="power",
        path=None,
        note=note,
    )
    return RailSum(info, summed), None


def _has_input(rails: list[Rail]) -> bool:
    return any(r.scope == "module-input" for r in rails)


def primary_source(discovery: Discovery) -> MeteredSource | None:
    """The device total: the board input (Thor VIN), else the module input rail, else the
    sum of rails; None if none of them."""
    jetson = [s for s in discovery.sources if s.info.family == FAMILY]
    for scope in ("board", "module-input"):
        for s in jetson:
            if s.scope == scope:
                return s
    return next((s for s in jetson if s.name == f"{FAMILY}:total"), None)


# --- board input (INA238, Thor) --------------------------------------------------------------


def _board_input_dirs(root: Path) -> list[tuple[Path, str]]:
    """(hwmon dir, label) of every board-input monitor (an INA238 labelled VIN) below root."""
    found: dict[str, Path] = {}
    i2c = root / "sys" / "bus" / "i2c"
    for dev in _listdir(i2c / "devices"):
        if read_str(dev / "name") in BOARD_INPUT_CHIPS:
            found.setdefault(dev.name, dev)
    for driver in BOARD_INPUT_CHIPS:
        for dev in _listdir(i2c / "drivers" / driver):
            if _I2C_DEVICE.match(dev.name) and dev.is_dir():
                found.setdefault(dev.name, dev)
    out: list[tuple[Path, str]] = []
    for key in sorted(found):
        for hwmon in _listdir(found[key] / "hwmon"):
            label = _chip_label(hwmon)
            if hwmon.name.startswith("hwmon") and label in BOARD_INPUT_RAILS:
                out.append((hwmon, label))
    return out


def _chip_label(hwmon: Path) -> str | None:
    # The hwmon core's chip-wide `label` (from the device tree) names a one-channel monitor;
    # a driver may label the channel instead.
    for name in ("label", "power1_label", "in1_label"):
        label = read_str(hwmon / name)
        if label:
            return label
    return None


def _board_input(root: Path) -> BoardInputRail | Unavailable | None:
    """The device's input monitor as a source, or why it cannot be read; None if absent."""
    if not _ina3221_devices(root):
        return None  # not a Jetson: an INA238 elsewhere is the hwmon family's
    dirs = _board_input_dirs(root)
    if not dirs:
        return None
    hwmon, label = dirs[0]
    name = f"{FAMILY}:{label}"
    power = hwmon / "power1_input"
    why = probe_int(power)
    if why is not None:
        fix = PERMISSION_FIX if why == "permission denied" else None
        return Unavailable(FAMILY, name, f"{why}: {power}", fix)
    info = SourceInfo(
        family=FAMILY,
        name=name,
        scope="board",
        rail=label,
        unit="W",
        kind="power",
        path=str(power),
        note=BOARD_INPUT_NOTE,
    )
    return BoardInputRail(info, power)


def claimed_hwmon_dirs(root: Path = Path("/")) -> frozenset[Path]:
    """The hwmon dirs this family reads beyond the INA3221s (resolved), so the generic hwmon
    family does not list the same sensor a second time."""
    if not _ina3221_devices(root):
        return frozenset()
    out: set[Path] = set()
    for hwmon, _ in _board_input_dirs(root):
        try:
            out.add(hwmon.resolve())
        except (OSError, RuntimeError):
            continue
    return frozenset(out)


# --- board facts ---------------------------------------------------------------------------


def board_info(root: Path = Path("/")) -> dict[str, object]:
    """Model, L4T release, GPU load and nvpmodel mode; each None with a reason when unknown.

    Keys: model, l4t_release ("35.4.1"), gpu_load_percent, nvpmodel_id, nvpmodel_name,
    nvpmodel_source ("status" or "conf default"), unavailable ({key: reason}).
    """
    unavailable: dict[str, str] = {}
    info: dict[str, object] = {}

    info["model"] = _model(root)
    if info["model"] is None:
        unavailable["model"] = "no device-tree model"

    info["l4t_release"], why = _l4t_release(root)
    if why:
        unavailable["l4t_release"] = why

    info["gpu_load_percent"], why = _gpu_load(root)
    if why:
        unavailable["gpu_load_percent"] = why

    mode_id, mode_name, source, why = _nvpmodel(root)
    info.update(nvpmodel_id=mode_id, nvpmodel_name=mode_name, nvpmodel_source=source)
    if why:
        unavailable["nvpmodel"] = why

    info["unavailable"] = unavailable
    return info


def _model(root: Path) -> str | None:
    # The value is NUL-terminated; _read_str strips it.
    for rel in ("sys/firmware/devicetree/base/model", "proc/device-tree/model"):
        value = read_str(root / rel)
        if value:
            return value
    return None


def _l4t_release(root: Path) -> tuple[str | None, str | None]:
    text = read_str(root / "etc" / "nv_tegra_release")
    if text is None:
        return None, "no /etc/nv_tegra_release"
    m = _RELEASE.search(text)
    if not m:
        return None, "unrecognised /etc/nv_tegra_release"
    return f"{m.group(1)}.{m.group(2)}", None


def _gpu_load(root: Path) -> tuple[float | None, str | None]:
    # Robust lookup first: the devfreq entry whose device-tree node is the GPU. Thor names
    # its devfreq entry gpu-gpc-N instead.
    candidates: list[Path] = []
    for entry in _listdir(root / "sys" / "class" / "devfreq"):
        of_name = read_str(entry / "device" / "of_node" / "name")
        if of_name in GPU_OF_NAMES or entry.name.startswith("gpu-gpc"):
            candidates.append(entry / "device" / "load")
    candidates += [root / rel for rel in GPU_LOAD_PATHS]
    for path in candidates:
        permille = read_int(path)
        if permille is not None:
            return permille / 10, None  # the file is per mille (0-1000)
    return None, "no readable GPU load file"


def _nvpmodel(root: Path) -> tuple[int | None, str | None, str | None, str | None]:
    """(id, name, where the id came from, reason if unknown).

    Not in docs/power-sensors.md: nvpmodel writes the selected mode to
    /var/lib/nvpmodel/status as "pmode:0001", and /etc/nvpmodel.conf names the modes
    (`< POWER_MODEL ID=1 NAME=25W >`) and the boot default (`< PM_CONFIG DEFAULT=2 >`),
    which applies while no mode has been selected (no status file).
    """
    conf = read_str(root / "etc" / "nvpmodel.conf")
    names = {int(i): n for i, n in _POWER_MODEL.findall(conf)} if conf else {}
    status = read_str(root / "var" / "lib" / "nvpmodel" / "status")
    m = _PMODE.search(status) if status else None
    if m:
        mode_id, source = int(m.group(1)), "status"
    elif conf and (d := _PM_DEFAULT.search(conf)):
        mode_id, source = int(d.group(1)), "conf default"
    elif conf is None:
        return None, None, None, "no /etc/nvpmodel.conf or /var/lib/nvpmodel/status"
    else:
        return None, None, None, "no current or default mode in nvpmodel files"
    name = names.get(mode_id)
    why = None if name else f"mode {mode_id} not named in /etc/nvpmodel.conf"
    return mode_id, name, source, why
