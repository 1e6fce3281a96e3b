"""Jetson INA3221 sources on fixture trees (tests/fixtures/sysfs/jetson, see its README)."""

from __future__ import annotations

import shutil
from pathlib import Path

import paths
import pytest

from edgeagent.meter.energy import PowerSource
from edgeagent.meter.sources import jetson
from edgeagent.meter.sources.family import SCOPES, Unavailable

FIXTURES = paths.FIXTURES / "sysfs" / "jetson"

NANO_IIO = "sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0"
AGX_I2C = "sys/devices/platform/c240000.i2c/i2c-1"
AGX_0040 = f"{AGX_I2C}/1-0040/hwmon/hwmon3"
AGX_0041 = f"{AGX_I2C}/1-0041/hwmon/hwmon4"
ORIN_NANO_HWMON = "sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1"


def tree(case: str, tmp_path: Path) -> Path:
    """A private copy of a fixture case, so a test can change files without touching the repo."""
    dest = tmp_path / case
    shutil.copytree(FIXTURES / case, dest, symlinks=True)
    return dest


def watts(discovery) -> dict[str, float | None]:
    return {s.name: s.read_watts() for s in discovery.sources}


def by_name(discovery, name: str):
    return next(s for s in discovery.sources if s.name == name)


# --- JetPack 4: IIO driver, power read directly in mW ---------------------------------------


def test_jp4_nano_iio_rails_in_watts_and_module_input_total(tmp_path: Path) -> None:
    root = tree("jp4_nano", tmp_path)
    d = jetson.discover(root)
    assert d.unavailable == ()
    # in_powerN_input is mW: 4971 -> 4.971 W.
    assert watts(d) == {
        "jetson:POM_5V_IN": 4.971,
        "jetson:POM_5V_GPU": 0.08,
        "jetson:POM_5V_CPU": 1.058,
    }
    total = jetson.primary_source(d)
    assert total is d.sources[0]
    assert total.name == "jetson:POM_5V_IN"
    assert total.scope == "module-input"
    assert total.info.rail == "POM_5V_IN"
    assert total.info.note == jetson.MODULE_INPUT_NOTE
    assert total.info.path == str(root / NANO_IIO / "in_power0_input")
    assert (total.info.family, total.info.unit, total.info.kind) == ("jetson", "W", "power")
    gpu = by_name(d, "jetson:POM_5V_GPU")
    assert (gpu.scope, gpu.info.rail, gpu.info.note) == ("soc", "POM_5V_GPU", None)
    for s in d.sources:
        assert isinstance(s, PowerSource)
        assert s.scope in SCOPES
        assert s.info.name == s.name and s.info.scope == s.scope


def test_jp4_tx2_two_chips_iio_device_dir_input_on_second_chip(tmp_path: Path) -> None:
    d = jetson.discover(tree("jp4_tx2", tmp_path))
    assert watts(d) == {
        "jetson:VDD_IN": 2.519,
        "jetson:VDD_SYS_GPU": 0.458,
        "jetson:VDD_SYS_SOC": 0.764,
        "jetson:VDD_4V0_WIFI": 0.0,
        "jetson:VDD_SYS_CPU": 0.229,
        "jetson:VDD_SYS_DDR": 0.226,
    }
    assert jetson.primary_source(d).name == "jetson:VDD_IN"
    assert [s.name for s in d.sources if s.scope == "module-input"] == ["jetson:VDD_IN"]


def test_jp4_board_without_input_rail_sums_rails_exactly(tmp_path: Path) -> None:
    # AGX Xavier-like naming on the Nano tree: no POM_5V_IN, so the total is the rail sum.
    root = tree("jp4_nano", tmp_path)
    for n, rail in enumerate(("GPU", "CPU", "SOC")):
        (root / NANO_IIO / f"rail_name_{n}").write_text(f"{rail}\n")
    d = jetson.discover(root)
    total = jetson.primary_source(d)
    assert total.name == "jetson:total"
    assert (total.scope, total.info.note) == ("soc", jetson.SUM_NOTE)
    assert total.read_watts() == 6.109  # (4971 + 80 + 1058) mW


# --- JetPack 5: AGX Orin hwmon, no module input rail ----------------------------------------


def test_jp5_agx_orin_hwmon_rails_are_mv_times_ma(tmp_path: Path) -> None:
    d = jetson.discover(tree("jp5_agx_orin", tmp_path))
    assert d.unavailable == ()
    assert watts(d) == {
        # Exact: summed in µW before the one division. VDDQ_VDD2_1V8AO is left out: NVIDIA
        # documents it as included in VIN_SYS_5V0, so adding it would count it twice.
        "jetson:total": 22.427632,
        "jetson:VDD_GPU_SOC": 3.149328,  # 5096 mV x 618 mA
        "jetson:VDD_CPU_CV": 14.309568,  # 5096 mV x 2808 mA
        "jetson:VIN_SYS_5V0": 4.968736,  # 5024 mV x 989 mA
        "jetson:VDDQ_VDD2_1V8AO": 1.09,  # 5000 mV x 218 mA, chip 0x41 channel 2
    }
    rail = by_name(d, "jetson:VDD_CPU_CV")
    # Paths as discovered: through the bus/i2c/devices link, not resolved.
    assert rail.info.path.endswith("sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in2_input")
    assert rail.info.note == "in2_input (mV) x curr2_input (mA)"


def test_jp5_agx_orin_total_is_the_sum_labelled_soc(tmp_path: Path) -> None:
    d = jetson.discover(tree("jp5_agx_orin", tmp_path))
    total = jetson.primary_source(d)
    assert total is d.sources[0]
    assert total.name == "jetson:total"
    assert total.scope == "soc"
    assert total.info.note == (
        "sum of rails (no module input rail on this board); left out as already counted: "
        "VDDQ_VDD2_1V8AO (inside VIN_SYS_5V0)"
    )
    assert (total.info.rail, total.info.path) == (None, None)
    assert [r.name for r in total.rails] == [
        "jetson:VDD_GPU_SOC", "jetson:VDD_CPU_CV", "jetson:VIN_SYS_5V0",
    ]
    nested = by_name(d, "jetson:VDDQ_VDD2_1V8AO")
    assert nested.info.note.startswith("inside VIN_SYS_5V0")
    assert not [s for s in d.sources if s.scope == "module-input"]


def test_nc_channels_and_the_sum_channel_are_skipped(tmp_path: Path) -> None:
    root = tree("jp5_agx_orin", tmp_path)
    # The NC channels carry readable values, so only the label keeps them out.
    assert (root / AGX_0041 / "in1_label").read_text().strip() == "NC"
    assert (root / AGX_0041 / "curr1_input").exists()
    # Make channel 7 look like a full channel too: a label, a voltage and a current.
    assert (root / AGX_0040 / "in7_label").read_text().strip() == "sum of shunt voltages"
    (root / AGX_0040 / "curr7_input").write_text("4415\n")
    d = jetson.discover(root)
    names = {s.name for s in d.sources}
    assert "jetson:NC" not in names
    assert not [n for n in names if "sum of" in n]
    assert len(d.sources) == 5  # four rails and the total
    assert d.unavailable == ()


def test_nc_match_is_a_whole_word(tmp_path: Path) -> None:
    root = tree("jp5_agx_orin", tmp_path)
    (root / AGX_0040 / "in1_label").write_text("VDD_SYNC\n")
    assert "jetson:VDD_SYNC" in {s.name for s in jetson.discover(root).sources}


def test_hwmon_channel_needs_both_label_and_current(tmp_path: Path) -> None:
    root = tree("jp5_agx_orin", tmp_path)
    (root / AGX_0040 / "curr2_input").unlink()
    (root / AGX_0040 / "in3_label").unlink()
    d = jetson.discover(root)
    assert set(watts(d)) == {"jetson:total", "jetson:VDD_GPU_SOC", "jetson:VDDQ_VDD2_1V8AO"}
    assert by_name(d, "jetson:total").read_watts() == 4.239328  # 3149328 + 1090000 µW


def test_each_device_counted_once_across_both_discovery_roots(tmp_path: Path) -> None:
    # 1-0040 and 1-0041 are reachable from bus/i2c/devices and bus/i2c/drivers/ina3221.
    root = tree("jp5_agx_orin", tmp_path)
    assert (root / "sys/bus/i2c/drivers/ina3221/1-0040").is_symlink()
    names = [s.name for s in jetson.discover(root).sources]
    assert len(names) == len(set(names)) == 5


def test_device_found_through_drivers_dir_only(tmp_path: Path) -> None:
    root = tree("jp5_agx_orin", tmp_path)
    shutil.rmtree(root / "sys/bus/i2c/devices")
    assert len(jetson.discover(root).sources) == 5


def test_same_rail_label_on_two_chips_gets_a_device_suffix(tmp_path: Path) -> None:
    root = tree("jp5_agx_orin", tmp_path)
    (root / AGX_0041 / "in2_label").write_text("VDD_GPU_SOC\n")
    names = {s.name for s in jetson.discover(root).sources}
    assert {"jetson:VDD_GPU_SOC", "jetson:VDD_GPU_SOC@1-0041"} <= names


# --- JetPack 6: Orin Nano hwmon with VDD_IN -------------------------------------------------


def test_jp6_orin_nano_vdd_in_is_the_module_input_total(tmp_path: Path) -> None:
    d = jetson.discover(tree("jp6_orin_nano", tmp_path))
    assert d.unavailable == ()
    assert watts(d) == {
        "jetson:VDD_IN": 5.561856,  # 5112 mV x 1088 mA
        "jetson:VDD_CPU_GPU_CV": 1.592448,
        "jetson:VDD_SOC": 1.469952,
    }
    total = jetson.primary_source(d)
    assert total is d.sources[0]
    assert (total.name, total.scope, total.info.rail) == ("jetson:VDD_IN", "module-input", "VDD_IN")
    assert total.info.note.startswith(jetson.MODULE_INPUT_NOTE)
    assert "jetson:total" not in watts(d)  # the input rail is the total; no sum as well


# --- reads after discovery ------------------------------------------------------------------


def test_reads_follow_the_files(tmp_path: Path) -> None:
    root = tree("jp6_orin_nano", tmp_path)
    vdd_in = jetson.primary_source(jetson.discover(root))
    (root / ORIN_NANO_HWMON / "curr1_input").write_text("2000\n")
    assert vdd_in.read_watts() == 10.224  # 5112 mV x 2000 mA


def test_rail_file_deleted_after_discovery_reads_none(tmp_path: Path) -> None:
    root = tree("jp5_agx_orin", tmp_path)
    d = jetson.discover(root)
    (root / AGX_0040 / "curr1_input").unlink()
    assert by_name(d, "jetson:VDD_GPU_SOC").read_watts() is None
    assert jetson.primary_source(d).read_watts() is None  # never a partial sum
    assert by_name(d, "jetson:VDD_CPU_CV").read_watts() == 14.309568


def test_iio_power_file_deleted_after_discovery_reads_none(tmp_path: Path) -> None:
    root = tree("jp4_nano", tmp_path)
    d = jetson.discover(root)
    (root / NANO_IIO / "in_power0_input").unlink()
    assert jetson.primary_source(d).read_watts() is None


def test_garbled_value_reads_none(tmp_path: Path) -> None:
    root = tree("jp6_orin_nano", tmp_path)
    d = jetson.discover(root)
    (root / ORIN_NANO_HWMON / "in1_input").write_text("\n")
    assert jetson.primary_source(d).read_watts() is None


# --- unavailable ----------------------------------------------------------------------------


def test_empty_root_is_not_present(tmp_path: Path) -> None:
    d = jetson.discover(tmp_path)
    assert d.sources == ()
    assert d.unavailable == (Unavailable(family="jetson", name="jetson", reason="not present"),)
    assert jetson.primary_source(d) is None


def test_other_i2c_devices_are_not_a_jetson(tmp_path: Path) -> None:
    dev = tmp_path / "sys/bus/i2c/devices/0-0050"
    dev.mkdir(parents=True)
    (dev / "name").write_text("eeprom\n")
    assert jetson.discover(tmp_path).unavailable[0].reason == "not present"


def _deny(monkeypatch: pytest.MonkeyPatch, denied: Path) -> None:
    # Running as root, chmod cannot make a file unreadable, so the denial is simulated.
    real = Path.read_text

    def read_text(self: Path, *args, **kwargs) -> str:
        if self.resolve() == denied.resolve():  # reached through a bus/i2c symlink too
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)


def test_unreadable_rail_is_unavailable_and_blocks_the_sum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree("jp5_agx_orin", tmp_path)
    _deny(monkeypatch, root / AGX_0040 / "curr2_input")
    d = jetson.discover(root)
    assert "jetson:VDD_CPU_CV" not in watts(d)
    rail, total = d.unavailable
    assert rail.name == "jetson:VDD_CPU_CV"
    assert rail.reason.startswith("permission denied: ")
    assert rail.fix == jetson.PERMISSION_FIX
    assert total.name == "jetson:total"
    assert total.reason == "sum of rails incomplete (jetson:VDD_CPU_CV unavailable)"
    assert jetson.primary_source(d) is None


def test_unreadable_nested_rail_does_not_block_the_sum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # VDDQ_VDD2_1V8AO is inside VIN_SYS_5V0, which is read: the sum is still complete.
    root = tree("jp5_agx_orin", tmp_path)
    _deny(monkeypatch, root / AGX_0041 / "curr2_input")
    d = jetson.discover(root)
    assert [u.name for u in d.unavailable] == ["jetson:VDDQ_VDD2_1V8AO"]
    assert jetson.primary_source(d).read_watts() == 22.427632


def test_nested_rail_is_summed_when_its_container_is_absent(tmp_path: Path) -> None:
    # Without VIN_SYS_5V0 on the board nothing else counts VDDQ_VDD2_1V8AO.
    root = tree("jp5_agx_orin", tmp_path)
    (root / AGX_0040 / "in3_label").write_text("NC\n")
    total = jetson.primary_source(jetson.discover(root))
    assert total.read_watts() == 18.548896  # 3149328 + 14309568 + 1090000 µW


def test_unreadable_module_input_leaves_no_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree("jp6_orin_nano", tmp_path)
    _deny(monkeypatch, root / ORIN_NANO_HWMON / "in1_input")
    d = jetson.discover(root)
    assert set(watts(d)) == {"jetson:VDD_CPU_GPU_CV", "jetson:VDD_SOC"}
    assert [u.name for u in d.unavailable] == ["jetson:VDD_IN", "jetson:total"]
    assert d.unavailable[1].reason == "module input rail VDD_IN unavailable"
    assert jetson.primary_source(d) is None


def test_all_channels_nc_is_unavailable(tmp_path: Path) -> None:
    root = tree("jp6_orin_nano", tmp_path)
    for k in (1, 2, 3):
        (root / ORIN_NANO_HWMON / f"in{k}_label").write_text("NC\n")
    d = jetson.discover(root)
    assert d.sources == ()
    assert d.unavailable == (
        Unavailable("jetson", "jetson", "INA3221 found but no labelled rails"),
    )


# --- board_info -----------------------------------------------------------------------------


def test_board_info_jp6_orin_nano(tmp_path: Path) -> None:
    info = jetson.board_info(tree("jp6_orin_nano", tmp_path))
    assert info == {
        "model": "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super",
        "l4t_release": "36.4.3",
        "gpu_load_percent": 34.7,  # load 347 per mille; the EMC devfreq entry (999) ignored
        "nvpmodel_id": 1,
        "nvpmodel_name": "25W",
        "nvpmodel_source": "status",
        "unavailable": {},
    }


def test_board_info_jp5_agx_orin(tmp_path: Path) -> None:
    info = jetson.board_info(tree("jp5_agx_orin", tmp_path))
    assert info["model"] == "Jetson AGX Orin Developer Kit"  # NUL stripped
    assert info["l4t_release"] == "35.4.1"  # R35 (release), REVISION: 4.1
    assert info["gpu_load_percent"] == 0.0  # devfreq of_node ga10b
    assert info["nvpmodel_id"] is None and info["nvpmodel_name"] is None
    assert info["unavailable"] == {"nvpmodel": "no /etc/nvpmodel.conf or /var/lib/nvpmodel/status"}


def test_board_info_jp4_nano_hard_coded_gpu_path(tmp_path: Path) -> None:
    info = jetson.board_info(tree("jp4_nano", tmp_path))
    assert info["model"] == "NVIDIA Jetson Nano Developer Kit"
    assert info["l4t_release"] == "32.7.1"
    assert info["gpu_load_percent"] == 51.2  # sys/devices/gpu.0/load, no devfreq entry
    assert (info["nvpmodel_id"], info["nvpmodel_name"]) == (1, "5W")


def test_board_info_nvpmodel_default_without_status(tmp_path: Path) -> None:
    root = tree("jp6_orin_nano", tmp_path)
    (root / "var/lib/nvpmodel/status").unlink()
    info = jetson.board_info(root)
    assert (info["nvpmodel_id"], info["nvpmodel_name"]) == (2, "MAXN_SUPER")
    assert info["nvpmodel_source"] == "conf default"


def test_board_info_not_a_jetson(tmp_path: Path) -> None:
    info = jetson.board_info(tmp_path)
    assert {k: info[k] for k in ("model", "l4t_release", "gpu_load_percent", "nvpmodel_id")} == {
        "model": None,
        "l4t_release": None,
        "gpu_load_percent": None,
        "nvpmodel_id": None,
    }
    assert set(info["unavailable"]) == {"model", "l4t_release", "gpu_load_percent", "nvpmodel"}


# --- JetPack 7: AGX Thor, INA238 board input (VIN) beside the INA3221 -----------------------

THOR_INA238 = f"{AGX_I2C}/1-0044"


def thor(tmp_path: Path) -> Path:
    """The AGX Orin tree relabelled as Thor: one INA3221 (VDD_GPU, VDD_CPU_SOC_MSS,
    VIN_SYS_5V0) plus an INA238 whose hwmon chip is labelled VIN (power1_input in µW)."""
    root = tree("jp5_agx_orin", tmp_path)
    for k, rail in enumerate(("VDD_GPU", "VDD_CPU_SOC_MSS", "VIN_SYS_5V0"), start=1):
        (root / AGX_0040 / f"in{k}_label").write_text(f"{rail}\n")
    for link in ("sys/bus/i2c/devices/1-0041", "sys/bus/i2c/drivers/ina3221/1-0041"):
        (root / link).unlink()
    shutil.rmtree(root / AGX_I2C / "1-0041")
    dev = root / THOR_INA238
    hw = dev / "hwmon" / "hwmon5"
    hw.mkdir(parents=True)
    (dev / "name").write_text("ina238\n")
    for name, value in {
        "name": "ina238", "label": "VIN", "power1_input": "23456000", "in1_input": "19872",
        "curr1_input": "1180", "in0_input": "2", "temp1_input": "41250",
    }.items():
        (hw / name).write_text(f"{value}\n")
    (root / "sys/bus/i2c/devices/1-0044").symlink_to(
        "../../../devices/platform/c240000.i2c/i2c-1/1-0044"
    )
    hwmon_class = root / "sys/class/hwmon"
    hwmon_class.mkdir(parents=True, exist_ok=True)
    for n, rel in ((3, f"{AGX_I2C}/1-0040/hwmon/hwmon3"), (5, f"{THOR_INA238}/hwmon/hwmon5")):
        (hwmon_class / f"hwmon{n}").symlink_to(f"../../{rel.removeprefix('sys/')}")
    return root


def test_thor_vin_is_the_total_over_the_rail_sum(tmp_path: Path) -> None:
    root = thor(tmp_path)
    d = jetson.discover(root)
    assert d.unavailable == ()
    total = jetson.primary_source(d)
    assert total is d.sources[0]
    assert (total.name, total.scope, total.info.rail) == ("jetson:VIN", "board", "VIN")
    assert total.read_watts() == 23.456  # power1_input 23456000 µW
    assert total.info.path == str(root / "sys/bus/i2c/devices/1-0044/hwmon/hwmon5/power1_input")
    # VIN holds the module and the carrier: no sum of the module rails as well.
    assert "jetson:total" not in watts(d)
    assert {"jetson:VDD_GPU", "jetson:VDD_CPU_SOC_MSS", "jetson:VIN_SYS_5V0"} <= set(watts(d))


def test_thor_unreadable_vin_leaves_no_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = thor(tmp_path)
    _deny(monkeypatch, root / THOR_INA238 / "hwmon/hwmon5/power1_input")
    d = jetson.discover(root)
    assert [u.name for u in d.unavailable] == ["jetson:VIN", "jetson:total"]
    assert d.unavailable[1].reason == "board input rail VIN unavailable"
    assert jetson.primary_source(d) is None  # the module rails are not the whole device


def test_thor_vin_is_not_listed_again_by_hwmon(tmp_path: Path) -> None:
    from edgeagent.meter.sources import hwmon

    root = thor(tmp_path)
    assert hwmon.discover(root).sources == ()  # the INA3221 and the INA238 are both jetson's


def test_ina238_without_a_jetson_is_left_to_hwmon(tmp_path: Path) -> None:
    from edgeagent.meter.sources import hwmon

    root = thor(tmp_path)
    for link in ("sys/bus/i2c/devices/1-0040", "sys/bus/i2c/drivers/ina3221/1-0040"):
        (root / link).unlink()
    assert jetson.discover(root).sources == ()
    assert [s.name for s in hwmon.discover(root).sources] == ["hwmon:ina238/power1"]
