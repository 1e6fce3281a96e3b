"""The head of `edgeagent report`'s text: the run's setup, a row per task with the
prefill/decode/tool split, throughput, speculative decoding, format errors and the energy,
all from one loaded run (results.metrics.load_run)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rundir import Provenance
from .metrics import PHASES, RunData, load_run
from .outcomes import AGENT_WORDS, Words, succeeded, words
from .provenance import device_lines, settings_lines

Row = dict[str, Any]

TABLE_HEADER = (
    f"{'task':<14} {'outcome':<10} {'termination':<16} {'steps':>5} {'wall s':>7} "
    f"{'ctx':>6} {'prefill tok':>11} {'decode tok':>10} {'reused tok':>10} "
    f"{'prefill':>13} {'decode':>13} {'tool':>13} {'energy':>8}"
)
RULE = "-" * len(TABLE_HEADER)
# task columns the total row adds up: times start as floats, token counts as ints
_TIME_TOTALS = ("wall_ms", "prefill_ms", "decode_ms", "tool_ms")
_TOKEN_TOTALS = ("prefill_tokens", "decoded_tokens", "reused_tokens")


@dataclass(frozen=True)
class PhaseSums:
    """The kept steps' sums per phase, as SQL's sum() gives them: None when nothing was
    recorded, never a 0 J that was not measured."""

    steps: int
    tokens: int | None
    joules: dict[str, float | None]
    ms: dict[str, float | None]


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:4.1f}%" if whole > 0 else "   -"


def _ms_s(ms: float | None) -> str:
    return f"{ms / 1000:.1f}" if ms is not None else "-"


def _added(values: Iterable[Any]) -> Any:
    """The non-null values added one by one (SQL's sum(): None when there are none). A plain
    loop, not sum(): Python 3.12's sum() compensates floats and could move a last digit."""
    total = None
    for value in values:
        if value is not None:
            total = value if total is None else total + value
    return total


def render_report(run_dir: Path) -> str:
    """The report's head of a run directory (loads it; formats.render_text reuses a load)."""
    return report_text(load_run(run_dir))


def report_text(data: RunData) -> str:
    """The report's head from one loaded run; formats.render_text adds the metrics below."""
    if not data.runs:
        return f"{data.run_dirs[0]}: the run never started (no run record)"
    run, tasks, steps = data.runs[0], data.tasks, data.steps
    model = data.provenance.model
    w = words(data)  # an accuracy run's samples are correct or not, not resolved
    lines = [*setup_lines(run, data.provenance), ""]
    lines += task_table(tasks, steps, w)
    lines += _termination_lines(tasks)
    lines += ["", _throughput_line(_totals(tasks))]
    lines += _speculative_lines(steps, model)
    lines.append(f"format errors: {sum(1 for s in steps if s['format_error'] is not None)}")
    return "\n".join(lines + _energy_lines(run, data.provenance, tasks, phase_sums(steps), w))


def _status(run: Row) -> str:
    status = run["status"]
    if status == "running":
        return "incomplete (the process ended before the run finished; steps below were kept)"
    if status == "failed":
        return f"failed: {run.get('failure_reason') or 'no reason recorded'}"
    return status


def setup_lines(run: Row, prov: Provenance) -> list[str]:
    """The run, its model and llama.cpp settings, the endpoint, tool format, device, suite."""
    model = prov.model
    lines = [
        f"run {run['run_id']}  [{_status(run)}]",
        f"model  {model.get('name') or model.get('path')}  {model.get('quantization') or ''}  "
        f"sha256 {str(model.get('sha256', ''))[:12]}  n_ctx {model.get('n_ctx')}  "
        f"threads {model.get('n_threads')}{' (auto)' if model.get('n_threads_auto') else ''}",
        *settings_lines(model),
    ]
    if model.get("sampling"):
        lines.append(f"sampling {model['sampling']}")
    if model.get("endpoint"):
        lines.append(
            f"endpoint {model['endpoint']}  ({model.get('server_kind')}, "
            f"{model.get('server_locality')} server; {model.get('energy_scope')})"
        )
    fmt = prov.section("tool_format")
    if fmt:
        family = f" ({fmt['family']})" if fmt.get("family") else ""
        lines.append(f"tool format  {fmt['resolved']}{family}: {fmt['reason']}")
    return [*lines, *device_lines(prov), f"suite  {run['suite']}"]


def _split(ms: float | None, wall: float) -> str:
    return f"{_ms_s(ms):>6}s {_pct(ms, wall)}"


def _task_line(t: Row) -> str:
    wall = t["wall_ms"]
    energy = f"{t['energy_j']:.1f} J" if t["energy_j"] is not None else "n/a"
    return (
        f"{t['task_id']:<14} {t['outcome']:<10} {t['termination']:<16} {t['steps']:>5} "
        f"{wall / 1000:>7.1f} {t['context_tokens_final']:>6} {t['prefill_tokens']:>11} "
        f"{t['decoded_tokens']:>10} {t['reused_tokens']:>10} "
        f"{_split(t['prefill_ms'], wall)} {_split(t['decode_ms'], wall)} "
        f"{_split(t['tool_ms'], wall)} {energy:>8}"
    )


def _totals(tasks: Sequence[Row]) -> dict[str, Any]:
    """The task columns the total row adds up, added task by task."""
    total: dict[str, Any] = {**dict.fromkeys(_TIME_TOTALS, 0.0), **dict.fromkeys(_TOKEN_TOTALS, 0)}
    for t in tasks:
        for key in total:
            total[key] += t[key]
    return total


def task_table(tasks: Sequence[Row], steps: Sequence[Row],
               w: Words = AGENT_WORDS) -> list[str]:
    """A row per finished task, one per task that kept steps but never finished, the total
    (its successes in `w`'s word: resolved tasks, or correct accuracy samples)."""
    finished = {t["task_id"] for t in tasks}
    # by task id, as the report's GROUP BY over run.db listed them
    kept = sorted(Counter(s["task_id"] for s in steps).items())
    unfinished = [f"{task_id:<14} {'(unfinished)':<10} {'':<16} {n:>5}  steps kept"
                  for task_id, n in kept if task_id not in finished]
    total = _totals(tasks)
    wall = total["wall_ms"]
    resolved = sum(1 for t in tasks if succeeded(t))
    total_line = (
        f"{'total':<14} {f'{resolved}/{len(tasks)} {w.total}':<10} {'':<16} "
        f"{sum(t['steps'] for t in tasks):>5} {wall / 1000:>7.1f} {'':>6} "
        f"{total['prefill_tokens']:>11} {total['decoded_tokens']:>10} "
        f"{total['reused_tokens']:>10} {_split(total['prefill_ms'], wall)} "
        f"{_split(total['decode_ms'], wall)} {_split(total['tool_ms'], wall)}"
    )
    return [TABLE_HEADER, RULE, *map(_task_line, tasks), *unfinished, RULE, total_line]


def _throughput_line(total: dict[str, Any]) -> str:
    def rate(tokens: int, ms: float) -> str:
        return f"{tokens / (ms / 1000):.1f} tok/s" if ms else "-"

    return (f"throughput: prefill {rate(total['prefill_tokens'], total['prefill_ms'])}, "
            f"decode {rate(total['decoded_tokens'], total['decode_ms'])} "
            "(wall time of whole phases)")


def _speculative_lines(steps: Sequence[Row], model: dict[str, Any]) -> list[str]:
    """Drafted and accepted tokens over the steps that decoded speculatively; none else."""
    spec = [s for s in steps if s.get("spec_drafted") is not None]
    if not spec:
        return []
    drafted = _added(s["spec_drafted"] for s in spec) or 0
    accepted = _added(s.get("spec_accepted") for s in spec) or 0
    acceptance = f"{accepted / drafted:.0%}" if drafted else "-"
    proposer = (model.get("speculative") or {}).get("proposer", "?")
    return [
        f"speculative decoding ({proposer}): "
        f"{drafted} drafted, {accepted} accepted ({acceptance}), "
        f"{_added(s.get('spec_target_passes') for s in spec)} target passes for "
        f"{_added(s['decoded_tokens'] for s in spec)} decoded tokens"
    ]


def _termination_lines(tasks: Sequence[Row]) -> list[str]:
    """Why each task that says so ended as it did (the stuck rule's repeats, the limit hit);
    a run from before the column has none."""
    details = [(t["task_id"], t["termination"], t["termination_detail"]) for t in tasks
               if t.get("termination_detail")]
    if not details:
        return []
    return ["why tasks ended:"] + [f"  {task_id:<14} {termination}: {detail[:160]}"
                                   for task_id, termination, detail in details]


def _ms(ns: int | None) -> float | None:
    """Whole nanoseconds summed first, then ms (as the report's SQL did)."""
    return None if ns is None else ns / 1e6


def _other_start(step: Row) -> int:
    """When the step's other phase began; a step from before the field has none (no time)."""
    start = step.get("t_other_start_ns")
    return step["t_start_ns"] if start is None else start


def phase_sums(steps: Sequence[Row]) -> PhaseSums:
    """Per-phase energy and wall time of the kept steps (prefill includes render and
    tokenise, as TTFT does; other is the time before a step's prompt)."""
    return PhaseSums(
        steps=len(steps),
        tokens=_added(s["decoded_tokens"] for s in steps),
        joules={p: _added(s.get(f"energy_{p}_j") for s in steps) for p in PHASES},
        ms={"prefill": _added(s["ttft_ms"] for s in steps),
            "decode": _ms(_added(s["t_decode_end_ns"] - s["t_first_token_ns"] for s in steps
                                 if None not in (s["t_decode_end_ns"], s["t_first_token_ns"]))),
            "tool": _added(s["tool_ms"] for s in steps),
            "other": _ms(_added(s["t_start_ns"] - _other_start(s) for s in steps
                                if s["t_start_ns"] is not None))},
    )


def _energy_lines(run: Row, prov: Provenance, tasks: Sequence[Row],
                  phases: PhaseSums, w: Words) -> list[str]:
    """Energy metrics, or why there are none: never a 0 J that was not measured."""
    power = prov.power
    total = power.get("total")
    known = [t["energy_j"] for t in tasks]
    if not tasks or any(j is None for j in known):
        reasons = {t["energy_null_reason"] for t in tasks if t["energy_j"] is None}
        if not reasons:
            reasons = {run["energy_null_reason"] or "no power source found"}
        return [f"energy: not measured ({'; '.join(sorted(r for r in reasons if r))})"]
    energy = sum(known)
    # the metered interval of each task (its energy over its average power)
    wall_s = sum(t["energy_j"] / t["average_w"] for t in tasks if t["average_w"])
    resolved = sum(1 for t in tasks if succeeded(t))
    tokens = phases.tokens or 0
    head = "energy:"
    if total:
        sample_hz = run.get("sample_hz")
        rate = f", sampled at {sample_hz:.1f} Hz" if sample_hz else ""
        label = "ESTIMATED " if total.get("estimated") else ""
        head = f"energy ({label}{total['label']}, scope {total['scope']}{rate}):"
    per_resolved = f"{energy / resolved:.1f}" if resolved else f"n/a (none {w.success})"
    lines = [
        head,
        f"  {energy:.1f} J over {wall_s:.1f} s, average {energy / wall_s:.2f} W"
        if wall_s > 0 else f"  {energy:.1f} J",
        f"  J per {w.unit} {energy / len(tasks):.2f}, J per {w.success} {w.unit} "
        f"{per_resolved}, J per step {energy / max(1, phases.steps):.2f}",
    ]
    if tokens and energy > 0:
        lines.append(
            f"  mJ per generated token {1000 * energy / tokens:.1f}, "
            f"tokens per J {tokens / energy:.3f}"
        )
    return lines + _by_phase_lines(phases) + _baseline_lines(power, energy, wall_s)


def _by_phase_lines(phases: PhaseSums) -> list[str]:
    by_phase = []
    for phase in PHASES:
        joules, ms = phases.joules[phase], phases.ms[phase]
        if joules is not None and ms:
            by_phase.append(f"{phase} {joules:.1f} J ({joules / (ms / 1000):.2f} W)")
    return ["  by phase: " + ", ".join(by_phase)] if by_phase else []


def _baseline_lines(power: Mapping[str, Any], energy: float, wall_s: float) -> list[str]:
    """Energy net of the idle baseline, or why the baseline is missing."""
    baseline = power.get("baseline") or {}
    if baseline.get("watts") is not None and wall_s > 0:
        net = energy - baseline["watts"] * wall_s
        flag = " (below idle: the baseline was noisy or the power state changed)" if net < 0 else ""
        return [f"  net of the idle baseline ({baseline['watts']:.2f} W over "
                f"{baseline['duration_s']:.0f} s): {net:.1f} J{flag}"]
    if baseline:
        return [f"  idle baseline not measured ({baseline.get('null_reason')})"]
    return []
