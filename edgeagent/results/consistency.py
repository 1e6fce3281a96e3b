"""Speed consistency inside a run: each step's decode and prefill time per token against the
run's own speed at that step's context length, and the steps far off it counted.

A step disturbed by another process (a compile, a browser, a second benchmark on the same
cores) decodes and prefills slower than the run's other steps at the same context; the run
itself is the reference, so no machine-specific expectation is needed.

- Decode: ms per output token, decode_ms / (decoded_tokens - 1) (TPOT as recorded, computed
  again from decode_ms), for steps that decoded at least MIN_DECODED tokens and not
  speculatively (a speculative step's time per token follows its acceptance rate).
- Prefill: ms per prefilled token, prefill_ms / prefill_tokens, for steps that prefilled at
  least MIN_PREFILLED tokens.
- The run's own speed: a Theil-Sen line of ms per token against context_tokens (the median
  of the pairwise slopes, then the median intercept), which follows the cost of attention
  growing with the context and which no minority of disturbed steps can move; the plain
  median when every step has the same context or the line is not positive at every checked
  context.
- Outliers as hyperfine flags them (sharkdp/hyperfine, src/outlier_detection.rs): modified
  Z-scores (x - median) / MAD of the residuals x = ln(observed / fitted), an outlier above
  OUTLIER_THRESHOLD = 1.4826 x 10 (the MAD scaled to a standard deviation, times ten). Where
  hyperfine floors a zero MAD at machine epsilon, the MAD here is floored at
  ln(MIN_RATIO) / OUTLIER_THRESHOLD, so that a flagged step is always at least MIN_RATIO
  off its expected time (a run of identical steps would otherwise flag a 1% wobble).
  Slow (z above the threshold) and fast (below minus it) are counted apart; only slow ones
  are a disturbance.

Fewer than MIN_STEPS checked steps: the phase is not checked, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import median
from typing import Any

from .metrics import RunData

# hyperfine's OUTLIER_THRESHOLD: 1.4826 (MAD -> standard deviation) x 10 standard deviations
OUTLIER_THRESHOLD = 1.4826 * 10.0
MIN_STEPS = 5  # fewer checked steps: the phase is not checked
MIN_DECODED = 8  # decoded tokens a step needs for its time per token to count
MIN_PREFILLED = 16  # prefilled tokens a step needs for its time per token to count
MIN_RATIO = 1.25  # a flagged step is at least this far off its expected time
_MAD_FLOOR = math.log(MIN_RATIO) / OUTLIER_THRESHOLD
_MAX_FIT_POINTS = 400  # Theil-Sen over at most this many points (80k pairs), spread by context

Row = dict[str, Any]


@dataclass(frozen=True)
class SpeedOutlier:
    """One flagged step: its ms per token against the run's own at its context."""

    task_id: str
    attempt: int
    step: int  # as stored in run.db (from 0); the report's line numbers steps from 1
    context_tokens: int
    observed_ms: float  # ms per token
    expected_ms: float  # the run's own speed at this context (the fit)
    ratio: float  # observed / expected
    z: float  # modified Z-score of ln(ratio)


@dataclass(frozen=True)
class PhaseConsistency:
    """One phase's check; `not_checked` says why when there were too few steps."""

    phase: str  # decode | prefill
    checked: int  # steps with enough tokens
    slow: int | None  # steps above the threshold (slower than the run's own speed)
    fast: int | None  # steps below minus the threshold
    worst: SpeedOutlier | None  # the slow outlier with the highest score
    threshold: float
    model: str | None = None  # "Theil-Sen line" | "median"
    intercept_ms: float | None = None  # the fit: ms per token at context 0
    slope_ms_per_ktok: float | None = None  # ms per token added by 1,000 context tokens
    not_checked: str | None = None


@dataclass(frozen=True)
class SpeedConsistency:
    decode: PhaseConsistency
    prefill: PhaseConsistency

    def to_dict(self) -> dict[str, Any]:
        return {"rule": "hyperfine modified Z-score of ln(observed / expected) ms per token",
                **asdict(self)}


def _decode_points(steps: Sequence[Row]) -> tuple[list[tuple[Row, float]], int]:
    """(step, ms per output token) of the steps that count; and the speculative ones left out."""
    points, speculative = [], 0
    for s in steps:
        decoded, ms = s.get("decoded_tokens") or 0, s.get("decode_ms")
        if decoded < MIN_DECODED or (ms or 0) <= 0:
            continue
        if s.get("spec_drafted") is not None:
            speculative += 1
            continue
        points.append((s, ms / (decoded - 1)))
    return points, speculative


def _prefill_points(steps: Sequence[Row]) -> list[tuple[Row, float]]:
    return [(s, s["prefill_ms"] / s["prefill_tokens"]) for s in steps
            if (s.get("prefill_tokens") or 0) >= MIN_PREFILLED and (s.get("prefill_ms") or 0) > 0]


def theil_sen(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float] | None:
    """(intercept, slope) of the Theil-Sen line; None when every x is the same."""
    pts = sorted(zip(xs, ys, strict=True))
    if len(pts) > _MAX_FIT_POINTS:  # evenly spaced by context, ends kept
        last = len(pts) - 1
        pts = [pts[round(i * last / (_MAX_FIT_POINTS - 1))] for i in range(_MAX_FIT_POINTS)]
    slopes = [(y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(pts)
              for x2, y2 in pts[i + 1:] if x2 != x1]
    if not slopes:
        return None
    slope = median(slopes)
    return median(y - slope * x for x, y in zip(xs, ys, strict=True)), slope


def modified_z(values: Sequence[float]) -> list[float]:
    """hyperfine's modified Z-scores, (x - median) / MAD, the MAD floored at _MAD_FLOOR."""
    mid = median(values)
    mad = max(median(abs(v - mid) for v in values), _MAD_FLOOR)
    return [(v - mid) / mad for v in values]


def _fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[str, float, float, list[float]]:
    """(model, intercept, slope, fitted values): the line, or the median where it fails."""
    line = theil_sen(xs, ys)
    if line is not None:
        fitted = [line[0] + line[1] * x for x in xs]
        if min(fitted) > 0:
            return "Theil-Sen line", line[0], line[1], fitted
    mid = median(ys)
    return "median", mid, 0.0, [mid] * len(ys)


def check_phase(phase: str, points: Sequence[tuple[Row, float]],
                why_few: str = "") -> PhaseConsistency:
    """One phase's steps (row, ms per token) against the run's own speed at their context."""
    if len(points) < MIN_STEPS:
        return PhaseConsistency(phase, len(points), None, None, None, OUTLIER_THRESHOLD,
                                not_checked=f"{len(points)} steps{why_few}; {MIN_STEPS} needed")
    xs = [float(s["context_tokens"]) for s, _ in points]
    ys = [ms for _, ms in points]
    model, intercept, slope, fitted = _fit(xs, ys)
    scores = modified_z([math.log(y / f) for y, f in zip(ys, fitted, strict=True)])
    slow = [i for i, z in enumerate(scores) if z > OUTLIER_THRESHOLD]
    worst = None
    if slow:
        i = max(slow, key=lambda k: scores[k])
        s = points[i][0]
        worst = SpeedOutlier(str(s["task_id"]), int(s.get("attempt") or 0), int(s["step"]),
                             int(s["context_tokens"]), ys[i], fitted[i], ys[i] / fitted[i],
                             scores[i])
    return PhaseConsistency(
        phase, len(points), len(slow), sum(1 for z in scores if z < -OUTLIER_THRESHOLD), worst,
        OUTLIER_THRESHOLD, model, intercept, slope * 1000)


def speed_consistency(data: RunData) -> SpeedConsistency:
    """Both phases of a loaded run."""
    decode, speculative = _decode_points(data.steps)
    spec = f" left after {speculative} speculative ones" if speculative else ""
    return SpeedConsistency(
        check_phase("decode", decode, f" with >= {MIN_DECODED} decoded tokens{spec}"),
        check_phase("prefill", _prefill_points(data.steps),
                    f" with >= {MIN_PREFILLED} prefilled tokens"),
    )


def _phase_text(c: PhaseConsistency, first: bool) -> str:
    if c.not_checked is not None:
        return f"{c.phase} not checked ({c.not_checked})"
    text = f"{c.phase} {c.slow} of {c.checked} steps"
    if first:
        text += " slower than the run's own speed at their context"
    if c.worst is not None:
        w = c.worst
        # numbered from 1, as the console and the run browser number steps
        text += (f" (worst: task {w.task_id} step {w.step + 1}, context {w.context_tokens}, "
                 f"{w.observed_ms:.2f} vs {w.expected_ms:.2f} ms/token, {w.ratio:.1f}x, "
                 f"modified z {w.z:.1f} > {c.threshold:.1f})")
    if c.fast:
        text += f", {c.fast} faster"
    return text


def consistency_text(result: SpeedConsistency) -> str:
    """The one line the report and the verdict's notes show."""
    parts = [_phase_text(result.decode, True), _phase_text(result.prefill, False)]
    return (f"speed consistency: {'; '.join(parts)} "
            f"[hyperfine's outlier rule: modified z > {OUTLIER_THRESHOLD:.1f}]")


def consistency_lines(data: RunData) -> list[str]:
    """The report's line (none for a run without steps)."""
    return [consistency_text(speed_consistency(data))] if data.steps else []
