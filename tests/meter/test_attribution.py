"""Phase attribution against a synthetic power trace with known piecewise-constant watts.

The trace is an agent step's phases: prefill 30 W for 4 s, decode 12 W for 9 s, tool 5 W for
3 s, other 8 W for 4 s (275 J over 20 s). Samples are built directly at 20 Hz (no threads),
once as instantaneous power and once as a cumulative energy counter that wraps mid-trace;
every phase's energy must come out within 1% of watts x duration, also when the phase edges
(and the power steps) fall between sample times. One last check runs a real Sampler thread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from edgeagent.meter.energy import (
    EnergyCounter,
    PowerSource,
    attribute_energy,
    is_energy_counter,
)
from edgeagent.meter.sample import Sample
from edgeagent.meter.sampler import Sampler

S = 1_000_000_000  # ns per second
RATE_HZ = 20
STEP_NS = S // RATE_HZ
T_BASE_NS = 1_000 * S  # a monotonic origin well away from 0, as on a real clock
PHASES = (("prefill", 30.0, 4.0), ("decode", 12.0, 9.0), ("tool", 5.0, 3.0), ("other", 8.0, 4.0))
TRACE_S = sum(seconds for _, _, seconds in PHASES)
WRAP_J = 262_143.328850  # a real RAPL max_energy_range_uj, in joules


@dataclass(frozen=True)
class TracePower:
    name: str = "trace:board"
    scope: str = "board"

    def read_watts(self) -> float | None:  # never read: the samples are built directly
        raise AssertionError("synthetic samples only")


@dataclass(frozen=True)
class TraceCounter:
    name: str = "trace:package-0"
    scope: str = "cpu-package"
    wrap_joules: float | None = WRAP_J

    def read_joules(self) -> float | None:
        raise AssertionError("synthetic samples only")


def phase_windows(offset_ns: int) -> list[tuple[str, float, int, int]]:
    """(name, watts, t0_ns, t1_ns) of every phase, shifted by offset_ns from the origin."""
    out, t = [], T_BASE_NS + offset_ns
    for name, watts, seconds in PHASES:
        t1 = t + round(seconds * S)
        out.append((name, watts, t, t1))
        t = t1
    return out


def power_at(t_ns: int, offset_ns: int) -> float:
    """The true power: each phase's watts from its start (inclusive) to its end."""
    windows = phase_windows(offset_ns)
    for _, watts, t0, t1 in windows:
        if t0 <= t_ns < t1:
            return watts
    return windows[0][1] if t_ns < windows[0][2] else windows[-1][1]


def energy_until(t_ns: int, offset_ns: int) -> float:
    """The exact integral of power_at from the trace's first sample time to t_ns."""
    joules, t = 0.0, T_BASE_NS
    edges = sorted({t_ns, *(w[2] for w in phase_windows(offset_ns) if T_BASE_NS < w[2] < t_ns)})
    for edge in edges:
        joules += power_at(t, offset_ns) * (edge - t) / S
        t = edge
    return joules


def sample_times() -> list[int]:
    # One sample past the end so the last phase's right edge is covered whatever the offset.
    n = round(TRACE_S * RATE_HZ) + 1
    return [T_BASE_NS + i * STEP_NS for i in range(n + 1)]


# A second source in every sample: lookups must go by name, not position.
DISTRACTOR = ("trace:gpu", 99.0)


def power_samples(source: TracePower, offset_ns: int) -> list[Sample]:
    out = []
    for t in sample_times():
        watts = power_at(t, offset_ns)
        out.append(Sample(t, None, None, watts, None, (DISTRACTOR, (source.name, watts))))
    return out


def counter_samples(source: TraceCounter, offset_ns: int, start_j: float) -> list[Sample]:
    """Cumulative joules, quantised to µJ as energy_uj is, restarting at 0 past WRAP_J."""
    out = []
    for t in sample_times():
        joules = round(((start_j + energy_until(t, offset_ns)) % WRAP_J) * 1e6) / 1e6
        # power_w stays None: a counter has no instantaneous reading
        out.append(Sample(t, None, None, None, None, (DISTRACTOR, (source.name, joules))))
    return out


def covering(samples: list[Sample], t0_ns: int, t1_ns: int) -> list[Sample]:
    """What Sampler.samples_covering gives: the window plus one sample each side."""
    inside = [i for i, s in enumerate(samples) if t0_ns <= s.t_ns <= t1_ns]
    lo = max(0, (inside[0] if inside else 0) - 1)
    hi = min(len(samples), (inside[-1] if inside else len(samples) - 1) + 2)
    return samples[lo:hi]


def assert_phases_within_1pct(samples: list[Sample], source, offset_ns: int) -> None:
    total = 0.0
    for name, watts, t0, t1 in phase_windows(offset_ns):
        expected = watts * (t1 - t0) / S
        for given in (samples, covering(samples, t0, t1)):
            energy = attribute_energy(given, t0, t1, source)
            assert energy.null_reason is None, (name, energy.null_reason)
            assert (energy.source, energy.scope) == (source.name, source.scope)
            assert energy.joules == pytest.approx(expected, rel=0.01), name
        total += energy.joules
    assert total == pytest.approx(275.0, rel=0.01)


def test_trace_sources_are_what_they_claim():
    assert isinstance(TracePower(), PowerSource) and not is_energy_counter(TracePower())
    assert isinstance(TraceCounter(), EnergyCounter) and is_energy_counter(TraceCounter())
    assert energy_until(T_BASE_NS + round(TRACE_S * S), 0) == pytest.approx(275.0)
    assert energy_until(T_BASE_NS + round(TRACE_S * S), 13_000_000) == pytest.approx(
        275.0 - 13e-3 * 8.0 + 13e-3 * 30.0  # the whole trace shifted 13 ms later
    )


@pytest.mark.parametrize("offset_ns", [0, 13_000_000], ids=["aligned", "offset-13ms"])
def test_power_trace_phases_within_1pct(offset_ns):
    source = TracePower()
    assert_phases_within_1pct(power_samples(source, offset_ns), source, offset_ns)


@pytest.mark.parametrize("offset_ns", [0, 13_000_000], ids=["aligned", "offset-13ms"])
def test_counter_trace_with_wraparound_phases_within_1pct(offset_ns):
    source = TraceCounter()
    # start 160 J below the wrap: the counter restarts at 0 about 8.3 s in, inside decode
    samples = counter_samples(source, offset_ns, start_j=WRAP_J - 160.0)
    values = [dict(s.readings)[source.name] for s in samples]
    wraps = [i for i in range(1, len(values)) if values[i] < values[i - 1]]
    assert len(wraps) == 1 and 0.3 < wraps[0] / len(values) < 0.6, "one wrap, mid-trace"
    assert_phases_within_1pct(samples, source, offset_ns)


def test_counter_without_wrap_range_is_null_not_a_number():
    source = TraceCounter(wrap_joules=None)
    samples = counter_samples(source, 0, start_j=WRAP_J - 160.0)
    _, _, t0, t1 = phase_windows(0)[1]  # decode, where the counter wraps
    energy = attribute_energy(samples, t0, t1, source)
    assert energy.joules is None
    assert energy.null_reason == "energy counter went backwards (reset)"


@dataclass
class SwitchingPower:
    """10 W until switch_ns (time.monotonic_ns), 20 W from then on."""

    switch_ns: int
    name: str = "fake:board"
    scope: str = "board"

    def read_watts(self) -> float | None:
        return 10.0 if time.monotonic_ns() < self.switch_ns else 20.0


def _sleep_until(t_ns: int) -> None:
    while (left := t_ns - time.monotonic_ns()) > 0:
        time.sleep(left / S)


def test_sampler_thread_end_to_end_within_1pct():
    start = time.monotonic_ns()
    source = SwitchingPower(switch_ns=start + 750_000_000)
    # Two ~0.6 s windows, each 0.1 s (two intervals) away from the switch at 0.75 s.
    low = (start + 50_000_000, start + 650_000_000)
    high = (start + 850_000_000, start + 1_450_000_000)
    with Sampler(1 / RATE_HZ, [source]) as sampler:
        _sleep_until(start + 1_500_000_000)
    assert len(sampler.samples_between(start, start + 1_500_000_000)) >= 20
    for (t0, t1), watts in ((low, 10.0), (high, 20.0)):
        energy = sampler.attribute_energy(t0, t1)
        assert energy.null_reason is None
        assert energy.source == "fake:board"
        assert energy.joules == pytest.approx(watts * (t1 - t0) / S, rel=0.01)
