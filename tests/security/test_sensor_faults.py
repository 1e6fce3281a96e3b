"""Sensor faults mid-run: a sensor that hangs, turns into a FIFO, returns garbage or vanishes.

The meter marks the gap and the run goes on: the run's thread never reads a sensor itself, so
a read that never returns stalls the sampler, not the agent.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from edgeagent.meter.sampler import Sampler
from edgeagent.meter.sources import discover_all

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sysfs"
INA226 = "sys/devices/platform/c240000.i2c/i2c-1/1-0045/hwmon/hwmon4/power1_input"
WATTS = 4.11312


@dataclass
class HangingSource:
    """A power source whose reads block while `hang` is set (a hung I2C bus)."""

    name: str = "fake:hanging"
    scope: str = "board"
    hang: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def read_watts(self) -> float | None:
        if self.hang.is_set():
            self.release.wait(timeout=30)
        return 5.0


def test_a_hanging_sensor_stalls_the_meter_not_the_caller(reliability) -> None:
    source = HangingSource()
    sampler = Sampler(0.02, [source]).start()
    try:
        assert sampler.edge_sample() is not None  # healthy: the thread answers at once
        source.hang.set()
        time.sleep(0.1)  # the thread is now stuck inside a read
        t0 = time.monotonic()
        assert sampler.edge_sample(timeout_s=0.3) is None  # no sample, but no hang either
        assert time.monotonic() - t0 < 1.0
        t0 = time.monotonic()
        sampler.stop()  # gives up on the stuck thread instead of hanging with it
        assert time.monotonic() - t0 < 7.0
        reliability("faults", injected=1, survived=1)  # a sensor read that never returns
        reliability("fault_kinds", sensor=1)
    finally:
        source.release.set()


@pytest.mark.slow
def test_sensor_swapped_for_a_fifo_reads_as_a_gap(tmp_path: Path, reliability) -> None:
    root = tmp_path / "sbc"
    shutil.copytree(FIXTURES / "hwmon" / "sbc", root, symlinks=True)
    root = root.resolve()
    sources = discover_all(root).sources
    ina = next(s for s in sources if s.name == "hwmon:ina226/power1")
    assert ina.read_watts() == WATTS
    path = root / INA226
    path.unlink()
    os.mkfifo(path)  # no writer: a blocking open or read would never return
    t0 = time.monotonic()
    assert ina.read_watts() is None
    assert time.monotonic() - t0 < 1.0
    path.unlink()
    path.write_text("not a number\n")
    assert ina.read_watts() is None  # garbage is a gap too
    path.write_text("4113120\n")
    assert ina.read_watts() == WATTS  # and the sensor is read again once it is back
    path.unlink()
    assert ina.read_watts() is None  # gone
    reliability("faults", injected=3, survived=3)  # FIFO, garbage, vanished file
    reliability("fault_kinds", sensor=3)


@pytest.mark.slow
def test_sampler_keeps_sampling_through_gaps(tmp_path: Path, reliability) -> None:
    root = tmp_path / "sbc"
    shutil.copytree(FIXTURES / "hwmon" / "sbc", root, symlinks=True)
    root = root.resolve()
    ina = next(s for s in discover_all(root).sources if s.name == "hwmon:ina226/power1")
    sampler = Sampler(0.02, [ina]).start()
    try:
        time.sleep(0.15)
        (root / INA226).unlink()
        time.sleep(0.15)
        (root / INA226).write_text("4113120\n")
        time.sleep(0.15)
    finally:
        sampler.stop()
    values = [s.power_w for s in sampler.samples()]
    assert WATTS in values and None in values
    first_gap = values.index(None)
    assert WATTS in values[first_gap:]  # readings resumed after the gap
    reliability("faults", injected=1, survived=1)  # sensor vanishing mid-run
    reliability("fault_kinds", sensor=1)
