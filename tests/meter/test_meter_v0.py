"""Meter v0: the sampler thread, window stats, energy attribution math, device snapshot."""

from __future__ import annotations

import json
import platform
import socket
import threading
import time

import pytest

from edgeagent.events import PhaseEnergy
from edgeagent.meter import device
from edgeagent.meter.energy import (
    EnergyCounter,
    PowerSource,
    attribute_energy,
    integrate_power,
)
from edgeagent.meter.sample import Sample
from edgeagent.meter.sampler import Sampler

S = 1_000_000_000  # ns per second


def _power_samples(watts: list[float | None], step_s: float = 0.1, t0: int = 0) -> list[Sample]:
    return [Sample(t0 + int(i * step_s * S), None, None, w, None) for i, w in enumerate(watts)]


class ConstantPower:
    name = "test:constant"
    scope = "board"

    def __init__(self, watts: float) -> None:
        self.watts = watts

    def read_watts(self) -> float | None:
        return self.watts


class Counter:
    """An energy counter fed by hand, like RAPL's energy_uj."""

    name = "test:counter"
    scope = "cpu-package"

    def __init__(self, wrap_joules: float | None = None) -> None:
        self.wrap_joules = wrap_joules

    def read_joules(self) -> float | None:
        return None


def _counter_samples(points: list[tuple[float, float]], name: str = "test:counter") -> list[Sample]:
    return [Sample(int(t * S), None, None, None, None, ((name, j),)) for t, j in points]


# --- sampler ---------------------------------------------------------------------------


def test_sampler_collects_while_running_and_stops_cleanly() -> None:
    sampler = Sampler(interval_s=0.02)
    t0 = time.monotonic_ns()
    with sampler:
        assert sampler.running
        time.sleep(0.3)
    t1 = time.monotonic_ns()
    assert not sampler.running
    assert not any(t.name == "edgeagent-sampler" for t in threading.enumerate())

    samples = sampler.samples()
    assert len(samples) >= 5
    times = [s.t_ns for s in samples]
    assert times == sorted(times) and t0 <= times[0] and times[-1] <= time.monotonic_ns()
    assert all(s.rss_bytes and s.rss_bytes > 0 for s in samples)
    assert all(s.cpu_percent is not None and s.cpu_percent >= 0 for s in samples)
    assert all(s.power_w is None for s in samples)  # no source: no number

    count = len(samples)
    time.sleep(0.1)
    assert len(sampler.samples()) == count  # nothing is sampled after stop
    assert sampler.samples_between(t0, t1) == [s for s in samples if t0 <= s.t_ns <= t1]
    sampler.stop()  # idempotent


def test_sampler_cannot_start_twice() -> None:
    with Sampler(interval_s=0.05) as sampler, pytest.raises(RuntimeError):
        sampler.start()


def test_sampler_records_power_sources_and_survives_a_failing_one() -> None:
    class Broken:
        name = "test:broken"
        scope = "board"

        def read_watts(self) -> float | None:
            raise OSError("sensor vanished")

    with Sampler(interval_s=0.02, sources=[ConstantPower(7.5), Broken()]) as sampler:
        time.sleep(0.15)
        t0 = time.monotonic_ns()
        time.sleep(0.2)
        t1 = time.monotonic_ns()
        time.sleep(0.05)
    samples = sampler.samples()
    assert samples and all(s.power_w == 7.5 for s in samples)
    assert all(dict(s.readings) == {"test:constant": 7.5, "test:broken": None} for s in samples)
    energy = sampler.attribute_energy(t0, t1)
    assert energy.source == "test:constant" and energy.scope == "board"
    assert energy.joules == pytest.approx(7.5 * (t1 - t0) / S)


def test_sampler_history_is_bounded() -> None:
    sampler = Sampler(interval_s=0.1, history_s=0.5)
    for _ in range(20):
        sampler.sample_now()
    assert len(sampler.samples()) == 5


def test_window_stats() -> None:
    sampler = Sampler(interval_s=0.1)
    for i, (cpu, rss, temp) in enumerate([(10.0, 100, 40.0), (30.0, 300, None), (50.0, 200, 45.0)]):
        sampler._samples.append(Sample(i * S, cpu, rss, None, temp))

    stats = sampler.window_stats(0, 2 * S)
    assert stats.cpu_percent_mean == pytest.approx(30.0)
    assert (stats.rss_bytes_max, stats.temp_c_max, stats.samples) == (300, 45.0, 3)

    assert sampler.window_stats(0, S).cpu_percent_mean == pytest.approx(20.0)
    # A window between samples borrows the nearest one.
    short = sampler.window_stats(int(1.8 * S), int(1.9 * S))
    assert (short.cpu_percent_mean, short.rss_bytes_max, short.samples) == (50.0, 200, 1)
    empty = Sampler().window_stats(0, S)
    assert (empty.cpu_percent_mean, empty.rss_bytes_max, empty.samples) == (None, None, 0)


def test_samples_covering_includes_edge_neighbours() -> None:
    sampler = Sampler(interval_s=0.1)
    for i in range(10):
        sampler._samples.append(Sample(i * S, None, None, None, None))
    t0, t1 = int(3.5 * S), int(5.5 * S)
    assert [s.t_ns // S for s in sampler.samples_covering(t0, t1)] == [3, 4, 5, 6]
    assert [s.t_ns // S for s in sampler.samples_between(t0, t1)] == [4, 5]


def test_sampler_derives_power_from_an_energy_counter() -> None:
    class Ticking(Counter):
        def __init__(self) -> None:
            super().__init__(wrap_joules=None)
            self.start = time.monotonic()

        def read_joules(self) -> float | None:
            return 3.0 * (time.monotonic() - self.start)  # a steady 3 W

    sampler = Sampler(interval_s=0.02, sources=[Ticking()])
    first = sampler.sample_now()
    time.sleep(0.05)
    second = sampler.sample_now()
    assert first.power_w is None  # one counter reading is no power yet
    assert second.power_w == pytest.approx(3.0, rel=0.05)
    energy = sampler.attribute_energy(first.t_ns, second.t_ns)
    assert energy.joules == pytest.approx(3.0 * (second.t_ns - first.t_ns) / S, rel=0.05)


# --- energy ----------------------------------------------------------------------------


def test_attribution_is_null_without_a_source() -> None:
    samples = _power_samples([10.0] * 21)
    energy = attribute_energy(samples, 0, 2 * S, None)
    assert energy == PhaseEnergy(joules=None, null_reason="no power source found")
    sampler = Sampler()
    sampler.sample_now()
    assert sampler.attribute_energy(0, time.monotonic_ns()).joules is None


def test_constant_power_integrates_to_energy() -> None:
    samples = _power_samples([10.0] * 21)  # 10 W for 2 s, one reading per 0.1 s
    energy = attribute_energy(samples, 0, 2 * S, ConstantPower(10.0))
    assert energy.joules == pytest.approx(20.0)
    assert (energy.source, energy.scope, energy.null_reason) == ("test:constant", "board", None)


def test_integration_clips_to_the_window() -> None:
    # 0 W for the first second, ramping linearly to 10 W at 2 s.
    points = [(0, 0.0), (1 * S, 0.0), (2 * S, 10.0)]
    assert integrate_power(points, 0, 2 * S, S)[0] == pytest.approx(5.0)
    assert integrate_power(points, int(1.5 * S), 2 * S, S)[0] == pytest.approx(
        (5.0 + 10.0) / 2 * 0.5
    )
    # A phase shorter than the sampling interval gets the interpolated power at its edges.
    assert integrate_power(points, int(1.2 * S), int(1.3 * S), S)[0] == pytest.approx(
        (2.0 + 3.0) / 2 * 0.1
    )
    # Edges just beyond the readings hold the nearest reading.
    assert integrate_power([(0, 4.0), (S, 4.0)], 0, int(1.2 * S), S)[0] == pytest.approx(4.8)


def test_integration_is_null_where_readings_do_not_cover_the_phase() -> None:
    source = ConstantPower(10.0)
    samples = _power_samples([10.0, 10.0, None, None, 10.0], step_s=1.0)
    energy = attribute_energy(samples, 0, 4 * S, source, max_gap_ns=S)
    assert energy.joules is None and "missing" in (energy.null_reason or "")
    far = attribute_energy(_power_samples([10.0, 10.0]), 10 * S, 11 * S, source)
    assert far.joules is None and far.null_reason
    assert attribute_energy([], 0, S, source).joules is None
    # The gap lies outside the phase: no harm.
    assert attribute_energy(samples, 0, S, source, max_gap_ns=S).joules == pytest.approx(10.0)


def test_energy_counter_differences_with_wraparound() -> None:
    samples = _counter_samples([(0.0, 90.0), (1.0, 95.0), (2.0, 2.0), (3.0, 7.0)])
    energy = attribute_energy(samples, 0, 3 * S, Counter(wrap_joules=102.0))
    assert energy.joules == pytest.approx(19.0)  # 5 + (102 - 95 + 2) + 5
    assert energy.scope == "cpu-package"
    half = attribute_energy(samples, int(0.5 * S), int(1.5 * S), Counter(wrap_joules=102.0))
    assert half.joules == pytest.approx(2.5 + 4.5)
    reset = attribute_energy(samples, 0, 3 * S, Counter(wrap_joules=None))
    assert reset.joules is None and "backwards" in (reset.null_reason or "")


def test_source_protocols_are_structural() -> None:
    assert isinstance(ConstantPower(1.0), PowerSource)
    assert isinstance(Counter(), EnergyCounter)


def test_attribution_rejects_reversed_windows() -> None:
    with pytest.raises(ValueError):
        attribute_energy([], 2, 1, None)


# --- device ----------------------------------------------------------------------------


@pytest.mark.slow
def test_device_snapshot_is_provenance_without_hostname() -> None:
    snap = device.device_snapshot("CPU : AVX2 = 1")
    text = json.dumps(snap)  # goes into the run record as is
    hostname = socket.gethostname()
    assert "hostname" not in snap and (len(hostname) < 4 or hostname not in text)
    assert snap["llama_system_info"] == "CPU : AVX2 = 1"
    assert snap["machine"] == platform.machine()
    assert snap["cpu_logical_cores"] >= 1 and snap["memory_total_bytes"] > 0
    assert isinstance(snap["amx"], bool)
    assert set(snap["cpu_flags"]) <= set(device.FLAGS_OF_INTEREST)
    assert snap["edgeagent_version"]
    assert (snap["edgeagent_git_commit"] is None) == (snap["edgeagent_git_dirty"] is None)


@pytest.mark.slow
def test_amx_warning_follows_cpu_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device, "cpuinfo", lambda: ("Xeon", frozenset({"avx2", "amx_tile"})))
    warning = device.amx_warning()
    assert warning and "GGML_NATIVE=OFF" in warning and "\n" not in warning
    assert device.device_snapshot()["amx"] is True
    monkeypatch.setattr(device, "cpuinfo", lambda: ("Ryzen", frozenset({"avx2"})))
    assert device.amx_warning() is None
