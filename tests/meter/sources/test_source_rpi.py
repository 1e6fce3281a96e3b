"""Raspberry Pi 5 PMIC source: `vcgencmd pmic_read_adc` parsing and discovery.

vcgencmd_pmic_read_adc_pi5.txt is a public capture from an idle Pi 5 (the doc's section 6
quotes five of its lines); vcgencmd_pmic_read_adc_pi4.txt is what a Pi without that PMIC
answers.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import paths
import pytest

from edgeagent.meter.energy import PowerSource, read_source
from edgeagent.meter.sources import rpi
from edgeagent.meter.sources.family import Unavailable

FIXTURES = paths.FIXTURES / "commands"
PI5 = (FIXTURES / "vcgencmd_pmic_read_adc_pi5.txt").read_text()
PI4 = (FIXTURES / "vcgencmd_pmic_read_adc_pi4.txt").read_text()

# (rail, V, A) of the capture, in the order vcgencmd lists the currents.
PI5_RAILS = [
    ("3V7_WL_SW", 3.62925200, 0.09466522),
    ("3V3_SYS", 3.31652900, 0.08197812),
    ("1V8_SYS", 1.79877700, 0.15029320),
    ("DDR_VDD2", 1.10146400, 0.00390372),
    ("DDR_VDDQ", 0.60622650, 0.00000000),
    ("1V1_SYS", 1.10402800, 0.20299340),
    ("0V8_SW", 0.79853400, 0.30546610),
    ("VDD_CORE", 0.74944980, 1.11625000),
    ("3V3_DAC", 3.31043600, 0.00000000),
    ("3V3_ADC", 3.31684600, 0.00018315),
    ("0V8_AON", 0.79794790, 0.00274725),
    ("HDMI", 5.10138000, 0.01660560),
]
PI5_WATTS = sum(v * a for _, v, a in PI5_RAILS)


class FakeRun:
    """Stands in for running a command: returns scripted stdout or raises."""

    def __init__(self, *outputs: str | BaseException) -> None:
        self.outputs = list(outputs)
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Sequence[str]) -> str:
        self.calls.append(tuple(argv))
        out = self.outputs[0] if len(self.outputs) == 1 else self.outputs.pop(0)
        if isinstance(out, BaseException):
            raise out
        return out


def _pi_root(tmp_path: Path, model: str = "Raspberry Pi 5 Model B Rev 1.1") -> Path:
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_text(model + "\x00")
    return tmp_path


# --- parsing --------------------------------------------------------------------------


def test_parse_pairs_current_and_voltage_by_rail_name() -> None:
    rails = rpi.parse_pmic_read_adc(PI5)
    assert [(r.name, r.volts, r.amps) for r in rails] == PI5_RAILS
    # EXT5V_V and BATT_V have no current channel: not rails of the sum.
    assert {"EXT5V", "BATT"}.isdisjoint(r.name for r in rails)


def test_board_power_is_the_exact_sum_of_v_times_a() -> None:
    assert rpi.board_watts(rpi.parse_pmic_read_adc(PI5)) == PI5_WATTS
    assert PI5_WATTS == pytest.approx(2.2822, abs=1e-4)


def test_channel_numbers_do_not_pair_rails() -> None:
    # current(0) and volt(8) are the same rail; the names pair them, not the numbers.
    text = "     3V7_WL_SW_A current(0)=0.00390372A\n     3V7_WL_SW_V volt(8)=3.74937600V\n"
    (rail,) = rpi.parse_pmic_read_adc(text)
    assert (rail.name, rail.watts) == ("3V7_WL_SW", 3.74937600 * 0.00390372)


def test_a_rail_missing_half_its_pair_is_left_out() -> None:
    text = "  VDD_CORE_A current(7)=1.11625000A\n    HDMI_V volt(23)=5.10138000V\n"
    assert rpi.parse_pmic_read_adc(text) == ()
    assert rpi.parse_pmic_read_adc(PI4) == ()


# --- discovery ------------------------------------------------------------------------


def test_discover_on_a_pi_5_reads_the_board_sum(tmp_path: Path) -> None:
    run = FakeRun(PI5)
    found = rpi.discover(_pi_root(tmp_path), run=run)

    assert found.unavailable == ()
    (source,) = found.sources
    assert isinstance(source, PowerSource)
    assert (source.name, source.scope) == ("rpi:pmic", "board")
    info = source.info
    assert (info.family, info.unit, info.kind) == ("rpi", "W", "power")
    assert info.path == "vcgencmd pmic_read_adc"
    assert "12 PMIC rails" in info.note and "lower bound, not wall power" in info.note
    assert source.read_watts() == PI5_WATTS
    assert run.calls == [("vcgencmd", "pmic_read_adc")] * 2


def test_discover_without_a_device_tree_lets_vcgencmd_decide(tmp_path: Path) -> None:
    (source,) = rpi.discover(tmp_path, run=FakeRun(PI5)).sources  # e.g. inside a container
    assert source.read_watts() == PI5_WATTS


def test_another_board_does_not_run_vcgencmd(tmp_path: Path) -> None:
    run = FakeRun(PI5)
    found = rpi.discover(_pi_root(tmp_path, "NVIDIA Jetson AGX Orin Developer Kit"), run=run)
    assert found.unavailable == (Unavailable("rpi", "rpi:pmic", "not present"),)
    assert run.calls == []


def test_missing_vcgencmd_is_not_present(tmp_path: Path) -> None:
    run = FakeRun(FileNotFoundError(2, "No such file or directory", "vcgencmd"))
    found = rpi.discover(tmp_path, run=run)
    assert found.sources == ()
    assert found.unavailable == (Unavailable("rpi", "rpi:pmic", "not present"),)


@pytest.mark.slow
def test_default_runner_without_vcgencmd_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: the real subprocess call fails
    found = rpi.discover(tmp_path)
    assert found.unavailable == (Unavailable("rpi", "rpi:pmic", "not present"),)


def test_an_older_pi_has_no_pmic_readings(tmp_path: Path) -> None:
    root = _pi_root(tmp_path, "Raspberry Pi 4 Model B Rev 1.5")
    (u,) = rpi.discover(root, run=FakeRun(PI4)).unavailable
    assert u.name == "rpi:pmic"
    assert u.reason.startswith("no PMIC readings (vcgencmd pmic_read_adc needs a Raspberry Pi 5)")
    assert "Raspberry Pi 4 Model B" in u.reason and "Command not registered" in u.reason


def test_vcgencmd_without_firmware_access_is_permission_denied(tmp_path: Path) -> None:
    error = subprocess.CalledProcessError(
        255, ["vcgencmd", "pmic_read_adc"], output="", stderr="VCHI initialization failed\n"
    )
    (u,) = rpi.discover(_pi_root(tmp_path), run=FakeRun(error)).unavailable
    assert u.reason == "permission denied" and "video" in (u.fix or "")


# --- failures after discovery ---------------------------------------------------------


def test_vcgencmd_failing_mid_run_reads_none(tmp_path: Path) -> None:
    error = subprocess.CalledProcessError(1, ["vcgencmd", "pmic_read_adc"], stderr="boom")
    run = FakeRun(PI5, PI5, error, subprocess.TimeoutExpired("vcgencmd", 2.0), "", PI5)
    (source,) = rpi.discover(_pi_root(tmp_path), run=run).sources

    assert source.read_watts() == PI5_WATTS
    assert source.read_watts() is None  # non-zero exit
    assert source.read_watts() is None  # hung
    assert read_source(source) is None  # empty output
    assert source.read_watts() == PI5_WATTS  # recovers


def test_a_rail_dropping_out_is_a_gap_not_a_smaller_sum(tmp_path: Path) -> None:
    partial = "".join(line for line in PI5.splitlines(keepends=True) if "HDMI" not in line)
    (source,) = rpi.discover(_pi_root(tmp_path), run=FakeRun(PI5, partial)).sources
    assert source.read_watts() is None
