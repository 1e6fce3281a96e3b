"""Laptop battery sources on fixture trees (tests/fixtures/sysfs/battery, see its README)."""

from __future__ import annotations

import shutil
from pathlib import Path

import paths
import pytest

from edgeagent.meter.energy import PowerSource
from edgeagent.meter.sources import battery
from edgeagent.meter.sources.family import Unavailable

FIXTURES = paths.FIXTURES / "sysfs" / "battery"
BAT0 = "sys/class/power_supply/BAT0"
AC = "sys/class/power_supply/AC"


def tree(case: str, tmp_path: Path) -> Path:
    """A private copy of a fixture case, so a test can change files without touching the repo."""
    dest = tmp_path / case
    shutil.copytree(FIXTURES / case, dest, symlinks=True)
    return dest


def test_power_now_discharging(tmp_path: Path) -> None:
    root = tree("power_now_discharging", tmp_path)
    d = battery.discover(root)
    assert d.unavailable == ()
    (src,) = d.sources
    assert isinstance(src, PowerSource)
    assert src.read_watts() == 19.195  # power_now 19195000 µW
    assert (src.name, src.scope) == ("battery:BAT0", "battery-system")
    info = src.info
    assert (info.family, info.rail, info.unit, info.kind) == ("battery", "BAT0", "W", "power")
    assert info.path == str(root / BAT0 / "power_now")
    assert "Discharging" in info.note and ">= 1 s" in info.note
    assert battery.primary_source(d) is src


def test_voltage_times_current_discharging(tmp_path: Path) -> None:
    root = tree("voltage_current_discharging", tmp_path)
    (src,) = battery.discover(root).sources
    assert src.read_watts() == 14.888  # 14888000 µV x 1000000 µA
    assert src.info.path == str(root / BAT0 / "voltage_now")
    assert src.info.note.startswith("voltage_now (µV) x current_now (µA)")


def test_negative_current_is_taken_as_magnitude(tmp_path: Path) -> None:
    # The ABI says negative means discharging; ACPI reports unsigned. Both mean the same draw.
    root = tree("voltage_current_discharging", tmp_path)
    (root / BAT0 / "current_now").write_text("-1000000\n")
    (src,) = battery.discover(root).sources
    assert src.read_watts() == 14.888


def test_charging_is_a_source_that_reads_none_and_says_why(tmp_path: Path) -> None:
    d = battery.discover(tree("charging", tmp_path))
    (src,) = d.sources
    assert src.read_watts() is None  # power_now is the charge rate here, not system power
    assert d.unavailable == (
        Unavailable(
            family="battery",
            name="battery:BAT0",
            reason="not discharging (status: Charging)",
            fix="unplug the charger to measure on battery",
        ),
    )


@pytest.mark.parametrize("status", ["Full", "Not charging", "Unknown"])
def test_other_statuses_are_not_discharging(tmp_path: Path, status: str) -> None:
    root = tree("power_now_discharging", tmp_path)
    (root / BAT0 / "status").write_text(f"{status}\n")
    d = battery.discover(root)
    assert d.sources[0].read_watts() is None
    assert d.unavailable[0].reason == f"not discharging (status: {status})"


def test_status_is_rechecked_on_every_read(tmp_path: Path) -> None:
    root = tree("charging", tmp_path)
    (src,) = battery.discover(root).sources
    assert src.read_watts() is None
    # The charger unplugged mid-run: the battery discharges and AC goes offline.
    (root / BAT0 / "status").write_text("Discharging\n")
    (root / AC / "online").write_text("0\n")
    assert src.read_watts() == 25.12
    (root / BAT0 / "status").write_text("Charging\n")  # and plugged back in
    (root / AC / "online").write_text("1\n")
    assert src.read_watts() is None


def test_file_deleted_after_discovery_reads_none(tmp_path: Path) -> None:
    root = tree("power_now_discharging", tmp_path)
    (src,) = battery.discover(root).sources
    (root / BAT0 / "power_now").unlink()
    assert src.read_watts() is None


def test_status_deleted_after_discovery_reads_none(tmp_path: Path) -> None:
    root = tree("voltage_current_discharging", tmp_path)
    (src,) = battery.discover(root).sources
    (root / BAT0 / "status").unlink()
    assert src.read_watts() is None


def test_zero_while_discharging_is_a_gap(tmp_path: Path) -> None:
    root = tree("power_now_discharging", tmp_path)
    (src,) = battery.discover(root).sources
    (root / BAT0 / "power_now").write_text("0\n")
    assert src.read_watts() is None


def test_empty_root_is_not_present(tmp_path: Path) -> None:
    d = battery.discover(tmp_path)
    assert d.sources == ()
    assert d.unavailable == (Unavailable(family="battery", name="battery", reason="not present"),)
    assert battery.primary_source(d) is None


def test_mains_only_and_peripheral_batteries_are_not_present(tmp_path: Path) -> None:
    root = tree("power_now_discharging", tmp_path)
    shutil.rmtree(root / BAT0)
    mouse = root / "sys/class/power_supply/hidpp_battery_0"
    mouse.mkdir()
    (mouse / "type").write_text("Battery\n")
    (mouse / "scope").write_text("Device\n")
    (mouse / "status").write_text("Discharging\n")
    (mouse / "voltage_now").write_text("3900000\n")
    (mouse / "current_now").write_text("10000\n")
    assert battery.discover(root).unavailable[0].reason == "not present"


def test_battery_without_power_files_is_unavailable(tmp_path: Path) -> None:
    root = tree("voltage_current_discharging", tmp_path)
    (root / BAT0 / "current_now").unlink()
    d = battery.discover(root)
    assert d.sources == ()
    assert d.unavailable[0].name == "battery:BAT0"
    assert d.unavailable[0].reason == "no power_now, nor voltage_now and current_now"


def test_battery_without_status_is_unavailable(tmp_path: Path) -> None:
    root = tree("power_now_discharging", tmp_path)
    (root / BAT0 / "status").unlink()
    d = battery.discover(root)
    assert d.sources == ()
    assert d.unavailable[0].reason.startswith("status unreadable")


def test_unreadable_power_file_is_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree("power_now_discharging", tmp_path)
    denied, real = root / BAT0 / "power_now", Path.read_text

    def read_text(self: Path, *args, **kwargs) -> str:
        # Running as root, chmod cannot make a file unreadable, so the denial is simulated.
        if self == denied:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    d = battery.discover(root)
    assert d.sources == ()
    assert d.unavailable[0].reason == f"permission denied: {denied}"
    assert d.unavailable[0].fix == battery.PERMISSION_FIX


def _two_batteries(tmp_path: Path) -> Path:
    # A ThinkPad-style pair: BAT1 is a copy of BAT0 drawing 4 W.
    root = tree("power_now_discharging", tmp_path)
    shutil.copytree(root / BAT0, root / "sys/class/power_supply/BAT1")
    (root / "sys/class/power_supply/BAT1/power_now").write_text("4000000\n")
    return root


def test_two_batteries_total_sums_the_discharging_ones(tmp_path: Path) -> None:
    root = _two_batteries(tmp_path)
    d = battery.discover(root)
    assert [s.name for s in d.sources] == ["battery:total", "battery:BAT0", "battery:BAT1"]
    total = battery.primary_source(d)
    assert total is d.sources[0]
    assert (total.scope, total.read_watts()) == ("battery-system", 23.195)
    assert "one of 2 batteries" in d.sources[1].info.note
    # The idle one supplies nothing; the total is the discharging one alone.
    (root / "sys/class/power_supply/BAT1/status").write_text("Not charging\n")
    assert total.read_watts() == 19.195
    # Any battery charging means AC power: no system figure.
    (root / "sys/class/power_supply/BAT1/status").write_text("Charging\n")
    assert total.read_watts() is None


def test_two_batteries_one_unusable_means_no_total(tmp_path: Path) -> None:
    root = _two_batteries(tmp_path)
    (root / "sys/class/power_supply/BAT1/power_now").unlink()
    d = battery.discover(root)
    assert [s.name for s in d.sources] == ["battery:BAT0"]
    assert [u.name for u in d.unavailable] == ["battery:BAT1", "battery:total"]
    assert battery.primary_source(d) is None  # BAT0 alone is not the whole system


def test_discharging_while_ac_is_online_is_not_system_power(tmp_path: Path) -> None:
    # A charger too weak for the load: the battery discharges beside the AC adapter, so its
    # discharge is only part of the machine's draw.
    root = tree("power_now_discharging", tmp_path)
    (root / AC / "online").write_text("1\n")
    d = battery.discover(root)
    (src,) = d.sources
    assert src.read_watts() is None
    assert d.unavailable == (
        Unavailable(
            "battery",
            "battery:BAT0",
            "external power online (AC): the battery is not the only supply",
            battery.UNPLUG_FIX,
        ),
    )
    (root / AC / "online").write_text("0\n")  # unplugged mid-run: the battery is the system
    assert src.read_watts() == 19.195


def test_usb_c_charger_online_is_external_power(tmp_path: Path) -> None:
    # UCSI reports a USB-C port that sinks power as type USB, online 1 (2: PD programmable).
    root = tree("power_now_discharging", tmp_path)
    port = root / "sys/class/power_supply/ucsi-source-psy-USBC000:001"
    port.mkdir()
    (port / "type").write_text("USB\n")
    (port / "scope").write_text("System\n")
    (port / "online").write_text("2\n")
    (src,) = battery.discover(root).sources
    assert src.read_watts() is None
    (port / "online").write_text("0\n")
    assert src.read_watts() == 19.195


def test_two_batteries_total_is_none_while_ac_is_online(tmp_path: Path) -> None:
    root = _two_batteries(tmp_path)
    total = battery.primary_source(battery.discover(root))
    assert total.read_watts() == 23.195
    (root / AC / "online").write_text("1\n")
    assert total.read_watts() is None


def test_empty_bay_with_present_zero_is_not_a_battery(tmp_path: Path) -> None:
    # A driver may keep an empty bay's supply (present 0) with no readings.
    root = tree("power_now_discharging", tmp_path)
    bay = root / "sys/class/power_supply/BAT1"
    bay.mkdir()
    (bay / "type").write_text("Battery\n")
    (bay / "present").write_text("0\n")
    (bay / "status").write_text("Unknown\n")
    d = battery.discover(root)
    assert [s.name for s in d.sources] == ["battery:BAT0"]
    assert d.unavailable == ()
    assert battery.primary_source(d).read_watts() == 19.195
