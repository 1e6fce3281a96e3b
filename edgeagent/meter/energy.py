"""Power sources and the attribution of energy to phase intervals.

A sensor family (meter/sources/*) provides either instantaneous power (`PowerSource`) or a
cumulative energy counter (`EnergyCounter`, e.g. RAPL). The sampler reads every source on its
own thread; afterwards the energy of a phase [t0, t1] is the integral of the sampled power
over exactly that interval, or the difference of the counter at its edges. Without a source
the result is null with a reason: a number is never invented.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from edgeagent.events import PhaseEnergy

if TYPE_CHECKING:
    from edgeagent.meter.sample import Sample

NO_SOURCE = "no power source found"

# Readings farther than this from a phase edge (or gaps this long inside it) mean the
# sensor did not cover the phase, so the phase gets null rather than a guess.
DEFAULT_MAX_GAP_NS = 1_000_000_000


@runtime_checkable
class PowerSource(Protocol):
    """A sensor giving instantaneous power.

    name: unique and stable, e.g. "rapl:package-0"; scope: what the reading covers, e.g.
    "cpu-package", "board", "battery", "gpu" (an estimate says "estimate" here).
    """

    name: str
    scope: str

    def read_watts(self) -> float | None:
        """Current power in watts, or None when this read failed."""
        ...


@runtime_checkable
class EnergyCounter(Protocol):
    """A sensor giving a cumulative energy counter (more exact than sampling power)."""

    name: str
    scope: str
    wrap_joules: float | None  # the counter's range: it restarts at 0 past it; None: no wrap

    def read_joules(self) -> float | None:
        """The counter in joules, or None when this read failed."""
        ...


Source = PowerSource | EnergyCounter


def is_energy_counter(source: object) -> bool:
    return callable(getattr(source, "read_joules", None))


def read_source(source: Source) -> float | None:
    """One reading (joules for a counter, watts otherwise); None when the read fails."""
    try:
        value = source.read_joules() if is_energy_counter(source) else source.read_watts()
    except Exception:  # noqa: BLE001 - a flaky sensor must not stop the sampler
        return None
    if value is None:
        return None
    value = float(value)
    return value if value == value else None  # NaN is a failed read, not a measurement


def source_values(samples: Sequence[Sample], source: Source) -> list[tuple[int, float]]:
    """(t_ns, value) of every valid reading of source, in time order.

    Samples that carry per-source readings are looked up by source.name; samples without
    any (e.g. synthetic ones) fall back to their power_w.
    """
    out: list[tuple[int, float]] = []
    for s in samples:
        if s.readings:
            value = dict(s.readings).get(source.name)
        else:
            value = s.power_w
        if value is not None:
            out.append((s.t_ns, value))
    out.sort(key=lambda tv: tv[0])
    return out


def integrate_power(
    points: Sequence[tuple[int, float]], t0_ns: int, t1_ns: int, max_gap_ns: int
) -> tuple[float | None, str | None]:
    """Trapezoid integral of watts over [t0, t1] in joules, or (None, reason).

    The power curve is linear between readings and held flat for up to max_gap_ns beyond
    the first/last reading, so a phase shorter than the sampling interval still gets the
    interpolated power at its edges.
    """
    if not points:
        return None, "no power readings"
    first_t, last_t = points[0][0], points[-1][0]
    if first_t - t0_ns > max_gap_ns or t1_ns - last_t > max_gap_ns:
        return None, "no power readings near the phase"
    # Hold the edge readings flat so the curve spans the whole window.
    curve = list(points)
    if t0_ns < first_t:
        curve.insert(0, (t0_ns, points[0][1]))
    if t1_ns > last_t:
        curve.append((t1_ns, points[-1][1]))
    joules = 0.0
    for (ta, pa), (tb, pb) in zip(curve, curve[1:], strict=False):
        lo, hi = max(ta, t0_ns), min(tb, t1_ns)
        if hi <= lo:
            continue
        if tb - ta > max_gap_ns:
            return None, f"power readings missing for {(tb - ta) / 1e9:.1f} s in the phase"
        p_lo = _lerp(ta, pa, tb, pb, lo)
        p_hi = _lerp(ta, pa, tb, pb, hi)
        joules += (p_lo + p_hi) / 2 * (hi - lo) / 1e9
    return joules, None


def counter_delta(
    points: Sequence[tuple[int, float]],
    t0_ns: int,
    t1_ns: int,
    wrap_joules: float | None,
    max_gap_ns: int,
) -> tuple[float | None, str | None]:
    """Energy counter difference between t0 and t1 (interpolated at the edges), or None."""
    if len(points) < 2:
        return None, "fewer than two energy counter readings"
    unwrapped: list[tuple[int, float]] = [points[0]]
    offset = 0.0
    for (_, prev), (t, value) in zip(points, points[1:], strict=False):
        if value < prev:
            if wrap_joules is None:
                return None, "energy counter went backwards (reset)"
            offset += wrap_joules
        unwrapped.append((t, value + offset))
    first_t, last_t = unwrapped[0][0], unwrapped[-1][0]
    if first_t - t0_ns > max_gap_ns or t1_ns - last_t > max_gap_ns:
        return None, "no energy counter readings near the phase"
    for (ta, _), (tb, _) in zip(unwrapped, unwrapped[1:], strict=False):
        if min(tb, t1_ns) > max(ta, t0_ns) and tb - ta > max_gap_ns:
            return None, f"energy counter readings missing for {(tb - ta) / 1e9:.1f} s"
    return _counter_at(unwrapped, t1_ns) - _counter_at(unwrapped, t0_ns), None


def _counter_at(points: Sequence[tuple[int, float]], t: int) -> float:
    # Inside: linear between neighbours; outside: extended along the nearest segment's rate.
    if t <= points[0][0]:
        (ta, ea), (tb, eb) = points[0], points[1]
    elif t >= points[-1][0]:
        (ta, ea), (tb, eb) = points[-2], points[-1]
    else:
        i = next(i for i in range(1, len(points)) if points[i][0] >= t)
        (ta, ea), (tb, eb) = points[i - 1], points[i]
    return _lerp(ta, ea, tb, eb, t)


def _lerp(ta: int, va: float, tb: int, vb: float, t: int) -> float:
    if tb == ta:
        return va
    return va + (vb - va) * (t - ta) / (tb - ta)


def attribute_energy(
    samples: Sequence[Sample],
    t0_ns: int,
    t1_ns: int,
    source: Source | None,
    *,
    max_gap_ns: int = DEFAULT_MAX_GAP_NS,
) -> PhaseEnergy:
    """Energy drawn during [t0_ns, t1_ns] as seen by source; null with a reason if unknown.

    samples should include the readings just outside the window (Sampler.samples_covering)
    so the edges are interpolated rather than held.
    """
    if t1_ns < t0_ns:
        raise ValueError(f"phase ends before it starts: t0={t0_ns} t1={t1_ns}")
    if source is None:
        return PhaseEnergy(joules=None, null_reason=NO_SOURCE)
    points = source_values(samples, source)
    if is_energy_counter(source):
        wrap = getattr(source, "wrap_joules", None)
        joules, reason = counter_delta(points, t0_ns, t1_ns, wrap, max_gap_ns)
    else:
        joules, reason = integrate_power(points, t0_ns, t1_ns, max_gap_ns)
    return PhaseEnergy(joules=joules, source=source.name, scope=source.scope, null_reason=reason)
