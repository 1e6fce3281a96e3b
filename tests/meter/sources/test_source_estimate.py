"""The labelled CPU-utilisation x TDP estimate, with psutil.cpu_percent scripted."""

from __future__ import annotations

import math
from pathlib import Path

import psutil
import pytest

from edgeagent.meter.energy import PowerSource, read_source
from edgeagent.meter.sources import estimate
from edgeagent.meter.sources.estimate import EstimateSource
from edgeagent.meter.sources.family import SCOPES, Unavailable


class FakeCpuPercent:
    """psutil.cpu_percent returning scripted system utilisations (percent)."""

    def __init__(self, *values: float | BaseException) -> None:
        self.values = list(values)
        self.intervals: list[object] = []

    def __call__(self, interval: float | None = None, percpu: bool = False) -> float:
        self.intervals.append(interval)
        value = self.values.pop(0) if self.values else 0.0  # 0.0: what a priming call gets
        if isinstance(value, BaseException):
            raise value
        return value


@pytest.fixture
def cpu(monkeypatch: pytest.MonkeyPatch) -> FakeCpuPercent:
    fake = FakeCpuPercent(0.0)  # the priming call's meaningless first answer
    monkeypatch.setattr(psutil, "cpu_percent", fake)
    return fake


def test_power_is_tdp_times_utilisation_above_an_idle_floor(cpu: FakeCpuPercent) -> None:
    source = EstimateSource(tdp_w=20.0, idle_fraction=0.25)
    cpu.values += [0.0, 50.0, 100.0]
    assert source.read_watts() == 5.0  # 20 x 0.25
    assert source.read_watts() == 12.5  # 20 x (0.25 + 0.75 x 0.5)
    assert source.read_watts() == 20.0


def test_default_idle_fraction_is_a_tenth(cpu: FakeCpuPercent) -> None:
    source = EstimateSource(tdp_w=15.0)
    assert source.idle_fraction == 0.1
    cpu.values += [0.0, 100.0, 50.0]
    assert source.read_watts() == pytest.approx(1.5, rel=1e-12)
    assert source.read_watts() == 15.0
    assert source.read_watts() == pytest.approx(8.25, rel=1e-12)


def test_the_first_call_primes_and_every_call_is_non_blocking(cpu: FakeCpuPercent) -> None:
    source = EstimateSource(tdp_w=10.0)
    assert cpu.intervals == [None]  # primed at construction, before any read
    cpu.values.append(30.0)
    source.read_watts()
    assert cpu.intervals == [None, None]


def test_out_of_range_utilisation_is_clamped(cpu: FakeCpuPercent) -> None:
    source = EstimateSource(tdp_w=10.0, idle_fraction=0.0)
    cpu.values += [100.5, -1.0]
    assert source.read_watts() == 10.0
    assert source.read_watts() == 0.0


def test_a_failed_read_is_none(cpu: FakeCpuPercent) -> None:
    source = EstimateSource(tdp_w=10.0)
    cpu.values += [RuntimeError("psutil broke"), math.nan]
    assert source.read_watts() is None
    assert read_source(source) is None


def test_info_labels_it_an_estimate(cpu: FakeCpuPercent) -> None:
    source = EstimateSource(tdp_w=15.0)
    assert isinstance(source, PowerSource)
    assert (source.name, source.scope) == ("estimate:cpu-tdp", "estimated")
    assert source.scope in SCOPES
    info = source.info
    assert (info.family, info.name, info.scope) == ("estimate", "estimate:cpu-tdp", "estimated")
    assert (info.unit, info.kind) == ("W", "power")
    assert info.note == "estimate: CPU utilisation x declared TDP 15 W, not a measurement"
    assert EstimateSource(tdp_w=6.5).info.note == (
        "estimate: CPU utilisation x declared TDP 6.5 W, not a measurement"
    )


def test_discover_without_a_tdp_gives_no_number(tmp_path: Path) -> None:
    found = estimate.discover(tmp_path)
    assert found.sources == ()
    assert found.unavailable == (
        Unavailable(
            "estimate",
            "estimate:cpu-tdp",
            "no TDP declared",
            "pass --power-estimate-tdp WATTS to allow an estimate",
        ),
    )


def test_discover_with_a_tdp(tmp_path: Path, cpu: FakeCpuPercent) -> None:
    found = estimate.discover(tmp_path, tdp_w=28)
    (source,) = found.sources
    assert found.unavailable == ()
    cpu.values.append(100.0)
    assert source.read_watts() == 28.0


@pytest.mark.parametrize("tdp", [0, -5.0, math.nan, math.inf])
def test_a_bad_tdp_is_an_error(tmp_path: Path, cpu: FakeCpuPercent, tdp: float) -> None:
    with pytest.raises(ValueError, match="TDP"):
        estimate.discover(tmp_path, tdp_w=tdp)
    with pytest.raises(ValueError, match="TDP"):
        EstimateSource(tdp_w=tdp)


@pytest.mark.parametrize("fraction", [-0.1, 1.5])
def test_a_bad_idle_fraction_is_an_error(cpu: FakeCpuPercent, fraction: float) -> None:
    with pytest.raises(ValueError, match="idle_fraction"):
        EstimateSource(tdp_w=10.0, idle_fraction=fraction)
