"""Host stats the sampler records once a second: temperature, CPU and GPU clock, own RSS.

Read from the fixture sysfs trees (tests/fixtures/sysfs), copied with their links intact.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import paths
import pytest

from edgeagent.meter.host_state import HostReader
from edgeagent.meter.sampler import Sampler

FIXTURES = paths.FIXTURES / "sysfs"


def _tree(tmp_path: Path, rel: str) -> Path:
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / rel, root, symlinks=True)
    return root.resolve()


@pytest.mark.parametrize(
    ("rel", "mhz"),
    [
        ("jetson/jp5_agx_orin", 1300.5),  # devfreq 17000000.ga10b, of_node ga10b
        ("jetson/jp6_orin_nano", 624.75),  # 17000000.gpu; the memory controller is skipped
        ("hwmon/desktop", 2615.0),  # amdgpu freq1_input (sclk)
    ],
)
def test_gpu_clock_from_devfreq_or_amdgpu_in_mhz(tmp_path: Path, rel: str, mhz: float) -> None:
    assert HostReader(_tree(tmp_path, rel)).gpu_mhz() == mhz


def test_no_gpu_clock_is_none(tmp_path: Path) -> None:
    assert HostReader(_tree(tmp_path, "rapl/laptop")).gpu_mhz() is None


def test_hottest_plausible_temperature(tmp_path: Path) -> None:
    root = _tree(tmp_path, "hwmon/desktop")  # k10temp 45.25 C, amdgpu 52.0 C
    assert HostReader(root).max_temperature_c() == 52.0
    (root / "sys/class/hwmon/hwmon1/temp1_input").write_text("255000\n")  # absent-probe sentinel
    assert HostReader(root).max_temperature_c() == 45.25


def test_gpu_clock_that_disappears_reads_none(tmp_path: Path) -> None:
    root = _tree(tmp_path, "jetson/jp5_agx_orin")
    host = HostReader(root)
    assert host.gpu_mhz() == 1300.5
    (root / "sys/devices/17000000.ga10b/cur_freq").unlink(missing_ok=True)
    (root / "sys/class/devfreq/17000000.ga10b/cur_freq").unlink(missing_ok=True)
    assert host.gpu_mhz() is None


def test_sampler_records_gpu_clock_and_own_rss(tmp_path: Path) -> None:
    sampler = Sampler(0.05, host=HostReader(_tree(tmp_path, "jetson/jp5_agx_orin")))
    sample = sampler.sample_now()
    assert sample.gpu_mhz == 1300.5
    assert sample.rss_bytes is not None and sample.rss_bytes > 10_000_000  # this interpreter
