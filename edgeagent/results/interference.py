"""Host interference over a run: the share of the CPUs that other processes and the
hypervisor's steal took during each phase (from the steps' load_* columns, written by
meter/cpu_load.py), the verdict's check on the model phases, and the report's lines.

A run whose prefill or decode lost more than INTERFERENCE_THRESHOLD of the CPUs is INVALID
for its timings and energy; its outcomes (resolved tasks, scores) do not depend on speed and
stay valid. docs/interference.md gives the measurements behind the threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rundir import LOAD_PARTS
from .metrics import Metric

# Other processes' + steal's share of the CPUs during prefill or decode above which the
# run's timings are not a measurement of the device: alone, the runs measured here lost
# 0-3%; one busy neighbour on the 2-core host took 30-50% and cut decode 3.5x (see
# docs/interference.md for the table this rests on).
INTERFERENCE_THRESHOLD = 0.10
# Below this much model time (prefill + decode wall) the check does not judge: a moment's
# burst of a kernel thread, 20 ms of one CPU, would be 10% of a 0.1 s run on 2 CPUs.
MIN_MODEL_S = 1.0
MODEL_PHASES = ("prefill", "decode")
LOAD_PHASES = ("prefill", "decode", "tool")
NOT_RECORDED = "not measured: the run was recorded before edgeagent metered host interference"


@dataclass(frozen=True)
class PhaseInterference:
    """One phase over the run: shares of the host's CPU time (0..1), None when not measured."""

    phase: str
    steps: int  # steps whose phase was measured
    other_share: float | None
    steal_share: float | None
    cpus_s: float  # the host's CPU-seconds over the measured phases
    over_threshold: int  # steps whose own share passed the threshold
    null_reason: str | None = None

    @property
    def share(self) -> float | None:
        if self.other_share is None or self.steal_share is None:
            return None
        return self.other_share + self.steal_share


def _measured(step: dict[str, Any], phase: str) -> tuple[float, float, float] | None:
    values = [step.get(f"load_{phase}_{part}") for part in LOAD_PARTS]
    if any(v is None for v in values):
        return None
    other, steal, cpus = (float(v) for v in values)
    return (other, steal, cpus) if cpus > 0 else None


def phase_interference(steps: Sequence[dict[str, Any]], phase: str) -> PhaseInterference:
    """Other processes' and steal's share of the CPUs over one phase of every step."""
    if steps and f"load_{phase}_cpus_s" not in steps[0]:
        return PhaseInterference(phase, 0, None, None, 0.0, 0, NOT_RECORDED)
    measured = [m for s in steps if (m := _measured(s, phase)) is not None]
    if not measured:
        why = next((s.get(f"load_{phase}_null_reason") for s in steps
                    if s.get(f"load_{phase}_null_reason")), None)
        return PhaseInterference(phase, 0, None, None, 0.0, 0,
                                 why or "not measured: no step recorded this phase")
    other = sum(m[0] for m in measured)
    steal = sum(m[1] for m in measured)
    cpus = sum(m[2] for m in measured)
    over = sum(1 for o, st, c in measured if max(0.0, o + st) / c > INTERFERENCE_THRESHOLD)
    # /proc/stat ticks against the exact own clock can leave a small negative remainder
    return PhaseInterference(phase, len(measured), max(0.0, other) / cpus,
                             max(0.0, steal) / cpus, cpus, over)


def _clocks(steps: Sequence[dict[str, Any]]) -> list[float]:
    """Each step's mean CPU clock, where the OS exposed one."""
    return [float(s["cpu_mhz"]) for s in steps if s.get("cpu_mhz") is not None]


def run_interference(steps: Sequence[dict[str, Any]]) -> list[PhaseInterference]:
    return [phase_interference(steps, phase) for phase in LOAD_PHASES]


def _pct(share: float) -> str:
    return f"{100 * share:.0f}%" if share >= 0.095 else f"{100 * share:.1f}%"


def _phase_text(p: PhaseInterference) -> str:
    assert p.other_share is not None and p.steal_share is not None
    return (f"other processes used {_pct(p.other_share)} and steal {_pct(p.steal_share)} of "
            f"the CPUs during {p.phase}")


def interference_check(steps: Sequence[dict[str, Any]], allowed: bool
                       ) -> tuple[list[str], list[str]]:
    """(reasons, notes) of the verdict's host-interference check on the model phases."""
    phases = [p for p in run_interference(steps) if p.phase in MODEL_PHASES]
    measured = [p for p in phases if p.share is not None]
    if not measured:
        why = next((p.null_reason for p in phases if p.null_reason), "")
        detail = why.removeprefix("not measured").lstrip(": ") or "no counters"
        return [], [f"host interference not measured: {detail}"]
    limit = f"threshold {_pct(INTERFERENCE_THRESHOLD)}, docs/interference.md"
    over = [p for p in measured if (p.share or 0.0) > INTERFERENCE_THRESHOLD]
    text = "; ".join(_phase_text(p) for p in (over or measured))
    model_s = sum(float(s.get("prefill_ms") or 0) + float(s.get("decode_ms") or 0)
                  for s in steps) / 1000
    if model_s < MIN_MODEL_S:
        return [], [f"host interference not judged: the model phases took {model_s:.2f} s, "
                    f"under the {MIN_MODEL_S:.0f} s that tells interference from a moment's "
                    f"noise ({text})"]
    if not over:
        return [], [f"host interference within bounds: {text} ({limit})"]
    if allowed:
        return [], [f"host interference ACCEPTED with --allow-interference: {text} ({limit})"
                    "; the timings and energy describe a disturbed machine"]
    return [f"host interference: {text} ({limit}): this run's timings and energy are not "
            "valid; its outcomes (resolved counts, scores) stay valid"], []


def interference_lines(steps: Sequence[dict[str, Any]]) -> list[str]:
    """The report's lines: each phase's share, the steps over the threshold, the CPU clock."""
    lines = []
    for p in run_interference(steps):
        if p.share is None:
            lines.append(f"  {p.phase:<8} {p.null_reason}")
            continue
        flag = f", {p.over_threshold} of {p.steps} steps over {_pct(INTERFERENCE_THRESHOLD)}" \
            if p.over_threshold else ""
        lines.append(f"  {p.phase:<8} other processes {_pct(p.other_share or 0.0):>5}, "
                     f"steal {_pct(p.steal_share or 0.0):>5} of {p.cpus_s:.1f} CPU-s{flag}")
    clocks = _clocks(steps)
    if clocks:
        lines.append(f"  CPU clock mean {sum(clocks) / len(clocks):.0f} MHz over the steps, "
                     f"lowest step {min(clocks):.0f} MHz")
    return ["host interference (share of the CPUs lost to other processes and steal):",
            *lines]


def interference_metrics(steps: Sequence[dict[str, Any]]) -> list[Metric]:
    """Each phase's share of the CPUs lost to other processes and to steal, in percent (null
    with the reason when not measured), and the mean CPU clock over the steps."""
    out: list[Metric] = []
    for p in run_interference(steps):
        for part, share in (("other", p.other_share), ("steal", p.steal_share)):
            out.append(Metric(
                f"interference_{part}_{p.phase}",
                f"{'other processes' if part == 'other' else 'steal'}, share of the CPUs "
                f"during {p.phase}", 100 * share if share is not None else None, "%",
                p.null_reason if share is None else None, p.steps, False))
    clocks = _clocks(steps)
    out.append(Metric("cpu_mhz_mean", "CPU clock, mean over the steps",
                      sum(clocks) / len(clocks) if clocks else None, "MHz",
                      None if clocks else "no CPU clock exposed here", len(clocks)))
    return out
