"""hwmon power/energy discovery and reading, on fixture trees from tests/fixtures/sysfs/hwmon.

Each case has the device directories (<device>/hwmon/hwmonN) and the /sys/class/hwmon/hwmonN
links to them, as the kernel lays them out:
- desktop: k10temp (no power), an amdgpu dGPU with power1_input and power1_average, an
  amdgpu APU with only power1_average (labelled PPT), amd_energy (Ecore/Esocket µJ).
- sbc: a Jetson ina3221 (left to the jetson family) and an ina226 reporting power1_input
  4113120 µW (the doc's sample).
"""

from __future__ import annotations

import builtins
import os
import shutil
from pathlib import Path

import paths
import pytest

from edgeagent.meter.energy import (
    DEFAULT_MAX_GAP_NS,
    EnergyCounter,
    PowerSource,
    counter_delta,
    read_source,
)
from edgeagent.meter.sources import choose_total, hwmon
from edgeagent.meter.sources.family import SCOPES, Discovery, Unavailable

FIXTURES = paths.FIXTURES / "sysfs" / "hwmon"
S = 1_000_000_000

DGPU = Path("sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0/hwmon/hwmon1")
APU = Path("sys/devices/pci0000:00/0000:00:08.1/0000:13:00.0/hwmon/hwmon2")
AMD_ENERGY = Path("sys/devices/platform/amd_energy.0/hwmon/hwmon3")
INA3221 = Path("sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon3")
INA226 = Path("sys/devices/platform/c240000.i2c/i2c-1/1-0045/hwmon/hwmon4")

# name -> (file, raw value, scope, rail)
DESKTOP = {
    "hwmon:amdgpu@0000:03:00.0/power1": (DGPU / "power1_input", 48123000, "gpu", "power1"),
    "hwmon:amdgpu@0000:13:00.0/power1": (APU / "power1_average", 12345678, "gpu", "PPT"),
    "hwmon:amd_energy/energy1": (AMD_ENERGY / "energy1_input", 1234567890, "cpu-core", "Ecore000"),
    "hwmon:amd_energy/energy2": (AMD_ENERGY / "energy2_input", 1198765432, "cpu-core", "Ecore001"),
    "hwmon:amd_energy/energy3": (
        AMD_ENERGY / "energy3_input",
        98765432101,
        "cpu-package",
        "Esocket0",
    ),
}


def _tree(tmp_path: Path, case: str) -> Path:
    root = tmp_path / case
    shutil.copytree(FIXTURES / case, root, symlinks=True)
    return root.resolve()


def _by_name(d: Discovery) -> dict:
    return {s.name: s for s in d.sources}


def _read(s: object) -> float | None:
    return s.read_joules() if isinstance(s, EnergyCounter) else s.read_watts()  # type: ignore[attr-defined]


def test_desktop_sources_names_scopes_units(tmp_path: Path) -> None:
    root = _tree(tmp_path, "desktop")
    d = hwmon.discover(root)
    assert [s.name for s in d.sources] == list(DESKTOP)  # k10temp has no power channel
    assert d.unavailable == ()
    for s in d.sources:
        path, _, scope, rail = DESKTOP[s.name]
        assert s.scope == scope and s.scope in SCOPES
        assert (s.info.family, s.info.rail, s.info.path) == ("hwmon", rail, str(root / path))
        if path.name.startswith("power"):
            assert isinstance(s, PowerSource) and not isinstance(s, EnergyCounter)
            assert (s.info.unit, s.info.kind) == ("W", "power")
        else:
            assert isinstance(s, EnergyCounter)
            assert (s.info.unit, s.info.kind, s.wrap_joules) == ("J", "counter", None)


def test_microwatts_to_watts_and_microjoules_to_joules_exactly(tmp_path: Path) -> None:
    d = hwmon.discover(_tree(tmp_path, "desktop"))
    for s in d.sources:
        assert _read(s) == DESKTOP[s.name][1] / 1e6
    sources = _by_name(d)
    assert sources["hwmon:amdgpu@0000:03:00.0/power1"].read_watts() == 48.123
    assert sources["hwmon:amd_energy/energy3"].read_joules() == 98765.432101


def test_amdgpu_prefers_power1_input_over_average(tmp_path: Path) -> None:
    sources = _by_name(hwmon.discover(_tree(tmp_path, "desktop")))
    dgpu = sources["hwmon:amdgpu@0000:03:00.0/power1"]
    assert dgpu.info.path.endswith("/power1_input")  # not power1_average (47000000)
    assert dgpu.info.note == "amdgpu SoC power (on an APU it includes the CPU)"
    apu = sources["hwmon:amdgpu@0000:13:00.0/power1"]
    assert apu.info.path.endswith("/power1_average")
    assert "a running average" in (apu.info.note or "")


def test_average_interval_in_note(tmp_path: Path) -> None:
    root = _tree(tmp_path, "desktop")
    (root / APU / "power1_average_interval").write_text("1000\n")
    apu = _by_name(hwmon.discover(root))["hwmon:amdgpu@0000:13:00.0/power1"]
    assert "a running average over 1000 ms" in (apu.info.note or "")


def test_amd_energy_nesting_notes(tmp_path: Path) -> None:
    sources = _by_name(hwmon.discover(_tree(tmp_path, "desktop")))
    assert "never add to it" in sources["hwmon:amd_energy/energy1"].info.note
    assert "rapl:package-*" in sources["hwmon:amd_energy/energy3"].info.note


def test_energy_counter_over_an_interval(tmp_path: Path) -> None:
    root = _tree(tmp_path, "desktop")
    sock = _by_name(hwmon.discover(root))["hwmon:amd_energy/energy3"]
    prev = sock.read_joules()
    (root / AMD_ENERGY / "energy3_input").write_text("98785432101\n")
    cur = sock.read_joules()
    joules, reason = counter_delta(
        [(0, prev), (S, cur)], 0, S, sock.wrap_joules, DEFAULT_MAX_GAP_NS
    )
    assert (joules, reason) == ((98785432101 - 98765432101) / 1e6, None)
    # No wrap range: a counter that goes backwards is a reset, so the interval is null.
    (root / AMD_ENERGY / "energy3_input").write_text("5\n")
    back = sock.read_joules()
    joules, reason = counter_delta(
        [(0, cur), (S, back)], 0, S, sock.wrap_joules, DEFAULT_MAX_GAP_NS
    )
    assert joules is None and reason == "energy counter went backwards (reset)"


def test_power_follows_the_file(tmp_path: Path) -> None:
    root = _tree(tmp_path, "sbc")
    ina = _by_name(hwmon.discover(root))["hwmon:ina226/power1"]
    assert ina.read_watts() == 4113120 / 1e6
    (root / INA226 / "power1_input").write_text("5250000\n")
    assert ina.read_watts() == 5.25


def test_sensor_disappearing_mid_run_reads_none(tmp_path: Path) -> None:
    root = _tree(tmp_path, "desktop")
    sources = _by_name(hwmon.discover(root))
    (root / DGPU / "power1_input").unlink()  # the channel goes
    shutil.rmtree(root / AMD_ENERGY.parent.parent)  # the whole device goes
    dgpu = sources["hwmon:amdgpu@0000:03:00.0/power1"]
    assert dgpu.read_watts() is None and read_source(dgpu) is None
    assert sources["hwmon:amd_energy/energy3"].read_joules() is None
    assert sources["hwmon:amdgpu@0000:13:00.0/power1"].read_watts() == 12345678 / 1e6


def test_garbage_reads_none(tmp_path: Path) -> None:
    root = _tree(tmp_path, "sbc")
    ina = _by_name(hwmon.discover(root))["hwmon:ina226/power1"]
    (root / INA226 / "power1_input").write_text("N/A\n")
    assert ina.read_watts() is None


def test_ina3221_is_left_to_jetson_and_others_default_to_board(tmp_path: Path) -> None:
    root = _tree(tmp_path, "sbc")
    # Even with a power file the Jetson rail monitor is not read here.
    (root / INA3221 / "power1_input").write_text("7506560\n")
    d = hwmon.discover(root)
    assert [s.name for s in d.sources] == ["hwmon:ina226/power1"]
    ina = d.sources[0]
    assert ina.scope == "board"
    assert (ina.info.note or "").startswith("scope assumed")


def test_one_amdgpu_gets_a_plain_name(tmp_path: Path) -> None:
    root = _tree(tmp_path, "desktop")
    (root / "sys/class/hwmon/hwmon2").unlink()
    names = [s.name for s in hwmon.discover(root).sources]
    assert names[0] == "hwmon:amdgpu/power1"


def test_permission_denied_by_file_mode_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path, "sbc")
    real_open = builtins.open

    def fake_open(file, *args, **kwargs):
        if str(file).endswith("power1_input"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(hwmon.os, "access", lambda *a, **k: False)  # as a non-root user
    d = hwmon.discover(root)
    assert d.sources == ()
    path = root / INA226 / "power1_input"
    assert d.unavailable == (
        Unavailable(
            "hwmon",
            "hwmon:ina226/power1",
            "permission denied",
            f"sudo chmod a+r {path} (until reboot; a udev rule makes it last)",
        ),
    )


def test_driver_eperm_on_a_readable_file_keeps_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # amdgpu answers EPERM while the GPU is runtime-suspended: the file mode allows the
    # read, so the source stays and reads once the GPU wakes.
    root = _tree(tmp_path, "desktop")
    real_open = builtins.open

    def fake_open(file, *args, **kwargs):
        if str(file).endswith("hwmon1/power1_input"):
            raise PermissionError(1, "Operation not permitted", str(file))
        return real_open(file, *args, **kwargs)

    real_os_open = os.open

    def fake_os_open(file, *args, **kwargs):  # the sampler's reads hold descriptors
        if str(file).endswith("hwmon1/power1_input"):
            raise PermissionError(1, "Operation not permitted", str(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "open", fake_os_open)
    d = hwmon.discover(root)
    dgpu = _by_name(d)["hwmon:amdgpu@0000:03:00.0/power1"]
    assert "unreadable at discovery (Operation not permitted)" in (dgpu.info.note or "")
    assert dgpu.read_watts() is None
    monkeypatch.setattr(builtins, "open", real_open)
    monkeypatch.setattr(os, "open", real_os_open)
    assert dgpu.read_watts() == 48123000 / 1e6


@pytest.mark.parametrize("layout", ["empty", "no-power-sensors", "jetson-only"])
def test_nothing_to_read_is_not_present(tmp_path: Path, layout: str) -> None:
    root = tmp_path
    if layout == "no-power-sensors":
        root = _tree(tmp_path, "desktop")
        for n in (1, 2, 3):
            (root / f"sys/class/hwmon/hwmon{n}").unlink()  # k10temp alone remains
    elif layout == "jetson-only":
        root = _tree(tmp_path, "sbc")
        (root / "sys/class/hwmon/hwmon4").unlink()
    assert hwmon.discover(root) == Discovery(
        sources=(),
        unavailable=(
            Unavailable(
                family="hwmon",
                name="hwmon",
                reason="not present (no /sys/class/hwmon power or energy sensors)",
            ),
        ),
    )


def test_desktop_total_is_the_cpu_socket_counter_not_the_graphics_card(tmp_path: Path) -> None:
    # amdgpu cards are found first, but the model runs on the CPU: the socket counter is the
    # widest scope that holds its work.
    total = choose_total(hwmon.discover(_tree(tmp_path, "desktop")))
    assert total is not None
    assert (total.label, total.scope) == ("hwmon:amd_energy/energy3", "cpu-package")


ACPI_METER = Path("sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI000D:00")


def _acpi_power_meter(root: Path, hwmon_n: int = 5, oem: str | None = None) -> Path:
    """An ACPI 4.0 power meter as acpi_power_meter.c lays it out: hwmon_device_register()
    without a name, the attributes (name, power1_average, ...) on the ACPI device, reached
    as hwmonN/device/."""
    dev = root / ACPI_METER
    hw = dev / "hwmon" / f"hwmon{hwmon_n}"
    hw.mkdir(parents=True)
    (hw / "device").symlink_to("../..")
    (hw / "uevent").write_text("")
    (dev / "name").write_text("power_meter\n")
    (dev / "power1_average").write_text("23456000\n")  # µW
    (dev / "power1_average_interval").write_text("1000\n")
    (dev / "power1_model_number").write_text("\n")
    if oem is not None:
        (dev / "power1_oem_info").write_text(f"{oem}\n")
    link = root / "sys/class/hwmon" / f"hwmon{hwmon_n}"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(f"../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI000D:00/hwmon/hwmon{hwmon_n}")
    return hw


def test_acpi_power_meter_attributes_under_device_are_read(tmp_path: Path) -> None:
    hw = _acpi_power_meter(tmp_path)
    d = hwmon.discover(tmp_path)
    (meter,) = d.sources
    assert meter.name == "hwmon:power_meter/power1"
    assert meter.info.path == str(hw / "device" / "power1_average")
    assert meter.read_watts() == 23.456
    assert "a running average over 1000 ms" in (meter.info.note or "")
    (tmp_path / ACPI_METER / "power1_average").write_text("30000000\n")
    assert meter.read_watts() == 30.0


def test_acpi_power_meter_oem_info_names_the_rail(tmp_path: Path) -> None:
    # NVIDIA Grace: several meters, told apart only by power1_oem_info.
    _acpi_power_meter(tmp_path, oem="Grace Power Socket 0")
    (meter,) = hwmon.discover(tmp_path).sources
    assert meter.info.rail == "Grace Power Socket 0"


@pytest.mark.parametrize("chip", ["nouveau", "i915", "i915_gt0", "xe"])
def test_graphics_card_chips_are_gpu_scope_not_the_device_total(
    tmp_path: Path, chip: str
) -> None:
    root = _tree(tmp_path, "desktop")
    (root / DGPU / "name").write_text(f"{chip}\n")
    d = hwmon.discover(root)
    card = _by_name(d)[f"hwmon:{chip}/power1"]
    assert card.scope == "gpu"
    total = choose_total(d)
    assert total is not None and total.label == "hwmon:amd_energy/energy3"


def test_symlink_loop_in_the_class_dir_is_skipped(tmp_path: Path) -> None:
    # Python < 3.13 raises RuntimeError (not OSError) resolving a symlink loop.
    root = _tree(tmp_path, "desktop")
    (root / "sys/class/hwmon/hwmon9").symlink_to("hwmon9")
    assert [s.name for s in hwmon.discover(root).sources] == list(DESKTOP)
