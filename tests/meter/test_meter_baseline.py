"""Idle baseline power over a total's sources, net energy, and --baseline duration parsing.

The sources are fakes: a constant-power source (integrates exactly, so the baseline equals
its watts) and a RAPL-like counter that advances at 12 J per second of time.monotonic_ns().
Each baseline runs a real Sampler thread for about half a second.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from edgeagent.meter.baseline import (
    NO_TOTAL,
    Baseline,
    measure_baseline,
    net_energy,
    parse_duration,
)
from edgeagent.meter.energy import EnergyCounter, PowerSource
from edgeagent.meter.sources import Total


@dataclass
class ConstantPower:
    watts: float | None
    name: str = "fake:board"
    scope: str = "board"

    def read_watts(self) -> float | None:
        return self.watts


@dataclass
class ClockCounter:
    """A RAPL-like cumulative counter: joules = rate x monotonic seconds."""

    rate_w: float
    name: str = "fake:package-0"
    scope: str = "cpu-package"
    wrap_joules: float | None = None

    def read_joules(self) -> float | None:
        return self.rate_w * time.monotonic_ns() / 1e9


def total_of(*sources) -> Total:
    return Total(tuple(sources), sources[0].scope, " + ".join(s.name for s in sources))


def test_fakes_satisfy_the_source_protocols():
    assert isinstance(ConstantPower(1.0), PowerSource)
    assert isinstance(ClockCounter(1.0), EnergyCounter)


def test_constant_power_baseline_is_exact():
    base = measure_baseline(total_of(ConstantPower(7.5)), 0.5, 0.05)
    assert base.null_reason is None
    assert base.watts == pytest.approx(7.5, rel=1e-6)
    assert base.duration_s == pytest.approx(0.5, abs=0.1)
    assert base.samples >= 5
    assert (base.scope, base.label) == ("board", "fake:board")


def test_energy_counter_baseline():
    base = measure_baseline(total_of(ClockCounter(12.0)), 0.5, 0.05)
    assert base.null_reason is None
    assert base.watts == pytest.approx(12.0, rel=0.02)
    assert base.scope == "cpu-package"


def test_baseline_sums_every_source_of_the_total():
    # e.g. RAPL package + dram: the total is several sources that add up
    total = total_of(ClockCounter(12.0), ConstantPower(7.5, name="fake:dram", scope="dram"))
    base = measure_baseline(total, 0.5, 0.05)
    assert base.watts == pytest.approx(19.5, rel=0.02)
    assert base.label == "fake:package-0 + fake:dram"


def test_no_total_is_null_with_reason():
    base = measure_baseline(None, 30.0)  # returns at once: nothing to sample
    assert base == Baseline(None, 0.0, 0, None, None, NO_TOTAL)
    assert base.null_reason == "no power source found"


def test_a_source_without_readings_makes_the_baseline_null():
    total = total_of(ConstantPower(7.5), ConstantPower(None, name="fake:gpu", scope="gpu"))
    base = measure_baseline(total, 0.2, 0.05)
    assert base.watts is None
    assert base.null_reason is not None and base.null_reason.startswith("fake:gpu: ")
    assert base.samples >= 2


def test_progress_reports_elapsed_seconds_up_to_the_duration():
    seen: list[float] = []
    measure_baseline(total_of(ConstantPower(1.0)), 0.3, 0.05, progress=seen.append)
    assert seen, "progress was never called"
    assert seen == sorted(seen)
    assert seen[-1] == pytest.approx(0.3)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_baseline_duration_must_be_positive(bad):
    with pytest.raises(ValueError, match="positive"):
        measure_baseline(total_of(ConstantPower(1.0)), bad)


def test_net_energy():
    base = Baseline(2.0, 30.0, 600, "board", "fake:board", None)
    assert net_energy(100.0, base, 30.0) == pytest.approx(40.0)
    assert net_energy(100.0, base, 0.0) == pytest.approx(100.0)


def test_net_energy_below_zero_is_returned_not_clamped():
    base = Baseline(2.0, 30.0, 600, "board", "fake:board", None)
    assert net_energy(10.0, base, 30.0) == pytest.approx(-50.0)


def test_net_energy_unknown_when_either_side_is():
    known = Baseline(2.0, 30.0, 600, "board", "fake:board", None)
    null = Baseline(None, 30.0, 600, "board", "fake:board", "fake:board: no power readings")
    assert net_energy(None, known, 30.0) is None
    assert net_energy(100.0, None, 30.0) is None
    assert net_energy(100.0, null, 30.0) is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30.0),
        ("2m", 120.0),
        ("45", 45.0),
        ("1.5", 1.5),
        ("0.5s", 0.5),
        (".5", 0.5),
        ("500ms", 0.5),
        ("1h", 3600.0),
        (" 10 S ", 10.0),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "s", "abc", "30x", "-5", "1e3", "2m30s", "30 seconds"])
def test_parse_duration_rejects_bad_input(text):
    with pytest.raises(ValueError, match="invalid duration .*e.g. 30s, 2m, 45"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["0", "0s", "0.0m"])
def test_parse_duration_rejects_zero(text):
    with pytest.raises(ValueError, match="longer than zero"):
        parse_duration(text)
