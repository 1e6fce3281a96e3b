"""`run --repeats N` and `replay --repeats N`: the repetitions' summary (docs/run.md,
"Repeats").

Each repetition is an ordinary run directory; this module reads each finished one through
`load_run`, `run_metrics` and `metrics_by_key` (a replay's inline scores from its
result_summary.json) and pools every headline metric over them: mean, sample sd and the 95%
confidence interval of the mean by Student's t (a table for df 1..30, 1.96 beyond), with n.
A time, throughput or energy metric whose interval's half-width is more than
WIDE_HALF_WIDTH_PCT of its mean gets a note: too wide to compare devices that differ by less.
Written as repeats.json in the group directory, printed as a text table.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..rundir import REPEATS_FILE, SUMMARY_FILE
from .metrics import is_estimated, load_run, metrics_by_key, run_metrics

FORMAT = "edgeagent-repeats"
VERSION = 1
WIDE_HALF_WIDTH_PCT = 5.0  # a wider 95% interval cannot tell devices apart by less
WIDE_RULE = (f"a time, throughput or energy metric whose 95% interval half-width is more than "
             f"{WIDE_HALF_WIDTH_PCT:g}% of its mean is too wide to compare devices that differ "
             "by less")
# Student's t, two-sided 95% (the 0.975 quantile), for df 1..30; 1.96 (normal) beyond
T_975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
         2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
         2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)
Z_975 = 1.96


@dataclass(frozen=True)
class Headline:
    """One pooled metric: its run_metrics key (or a replay summary's), its label and unit,
    and whether it is a cost (time, throughput, energy) the wide-spread rule applies to."""

    key: str
    label: str
    unit: str
    cost: bool


_SPEED = (
    Headline("decode_tok_s", "decode tok/s", "tok/s", True),
    Headline("prefill_tok_s", "prefill tok/s", "tok/s", True),
    Headline("ttft_p50", "TTFT p50 ms", "ms", True),
    Headline("tpot_p50", "TPOT p50 ms", "ms", True),
)
_WALL = Headline("run_wall_s", "run wall s", "s", True)
RUN_HEADLINES = (
    _WALL,
    Headline("tasks_resolved", "resolved tasks", "tasks", False),
    Headline("resolved_rate", "resolved rate", "fraction", False),
    *_SPEED,
    Headline("step_latency_p50", "step latency p50 s", "s", True),
    Headline("energy_per_task_j", "energy per task J", "J", True),
)
# a replay's units are conversations of turns, its outcome the inline score
REPLAY_HEADLINES = (
    _WALL,
    Headline("inline_score", "inline score (MLPerf)", "fraction", False),
    Headline("own_inline_score", "inline score (own tools)", "fraction", False),
    *_SPEED,
    Headline("step_latency_p50", "turn latency p50 s", "s", True),
    Headline("energy_per_task_j", "energy per conversation J", "J", True),
)
_SUMMARY_KEYS = ("inline_score", "own_inline_score")  # read from result_summary.json
Value = tuple[float | None, str | None]  # a run's value, or None with the reason


@dataclass(frozen=True)
class RepeatRun:
    """One repetition as the command saw it: its run directory (None when it stopped before
    making one), the run's status and the exit code `check` gives it (128 + the signal when
    it was stopped)."""

    run_dir: str | None
    status: str
    exit_code: int


@dataclass(frozen=True)
class Pooled:
    """A metric over the finished repetitions: mean, sample sd, the 95% interval of the mean
    (t quantile `t`), its half-width as % of the mean; None with the reason where not."""

    key: str
    label: str
    unit: str
    n: int
    mean: float | None
    sd: float | None
    ci95: tuple[float, float] | None
    half_width_pct: float | None
    t: float | None
    values: tuple[float | None, ...]
    wide: bool
    null_reason: str | None = None


@dataclass(frozen=True)
class RepeatsSummary:
    group_dir: str
    command: str  # run | replay
    status: str  # running | complete | interrupted | failed
    repeats: int  # asked
    runs: tuple[RepeatRun, ...]
    finished: int  # complete runs, the ones pooled
    metrics: tuple[Pooled, ...]
    notes: tuple[str, ...]

    @property
    def exit_code(self) -> int:
        """The worst of the repetitions' exit codes (0 with none)."""
        return max((r.exit_code for r in self.runs), default=0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION, "command": self.command,
            "status": self.status, "repeats": self.repeats, "finished": self.finished,
            "exit_code": self.exit_code, "group_dir": self.group_dir,
            "runs": [{**asdict(r), "run_dir": _relative(r.run_dir, self.group_dir)}
                     for r in self.runs],
            "confidence": 0.95,
            "wide_rule": {"max_half_width_pct": WIDE_HALF_WIDTH_PCT, "rule": WIDE_RULE},
            "metrics": {m.key: _pooled_dict(m) for m in self.metrics},
            "notes": list(self.notes),
        }


def _relative(run_dir: str | None, group_dir: str) -> str | None:
    if run_dir is None:
        return None
    path = Path(run_dir)
    return path.name if path.parent == Path(group_dir) else run_dir


def _pooled_dict(m: Pooled) -> dict[str, Any]:
    d = asdict(m)
    del d["key"]
    d["ci95"] = list(m.ci95) if m.ci95 is not None else None
    d["values"] = list(m.values)
    return d


def t_quantile(df: int) -> float:
    """Student's t 0.975 quantile for `df` degrees of freedom (1.96 beyond 30)."""
    if df < 1:
        raise ValueError("df must be at least 1")
    return T_975[df - 1] if df <= len(T_975) else Z_975


def pool(headline: Headline, values: Sequence[Value]) -> Pooled:
    """Mean, sd and the 95% interval of one metric over the finished repetitions; n/a with
    the first reason when any of them lacks it (a mean over some would not be the group's)."""
    h = headline
    shown = tuple(v for v, _ in values)
    missing = [why or "not measured" for v, why in values if v is None]
    if not values or missing:
        if not values:
            why = "no finished repetition"
        elif len(missing) == len(values):
            why = missing[0]
        else:
            why = f"n/a in {len(missing)} of {len(values)} runs: {missing[0]}"
        return Pooled(h.key, h.label, h.unit, len(values) - len(missing), None, None, None,
                      None, None, shown, False, why)
    xs = [float(v) for v, _ in values if v is not None]
    mean = statistics.fmean(xs)
    if len(xs) < 2:
        return Pooled(h.key, h.label, h.unit, 1, mean, None, None, None, None, shown, False,
                      "one finished repetition: no spread")
    sd = statistics.stdev(xs)
    t = t_quantile(len(xs) - 1)
    half = t * sd / math.sqrt(len(xs))
    pct = abs(half / mean) * 100 if mean else None
    wide = h.cost and (pct > WIDE_HALF_WIDTH_PCT if pct is not None else half > 0)
    return Pooled(h.key, h.label, h.unit, len(xs), mean, sd, (mean - half, mean + half), pct,
                  t, shown, wide)


def wide_note(m: Pooled) -> str:
    """The note for a metric whose interval is too wide to compare devices."""
    spread = (f"±{m.half_width_pct:.1f}% of the mean" if m.half_width_pct is not None
              else "around a zero mean")
    return (f"{m.label}: 95% interval {spread}, too wide to compare devices that differ by "
            "less; run more repeats on a quieter machine")


def _run_values(run_dir: str, headlines: Sequence[Headline]) -> tuple[dict[str, Value], bool]:
    """One finished run's value (or None with the reason) of each headline metric, from
    run_metrics (a replay's inline scores from its result_summary.json), and whether its
    energy is an estimate."""
    data = load_run(run_dir)
    metrics = metrics_by_key(run_metrics(data))
    out: dict[str, Value] = {}
    for h in headlines:
        if h.key in _SUMMARY_KEYS:
            out[h.key] = _summary_value(Path(run_dir), h.key)
        else:
            out[h.key] = (metrics[h.key].value, metrics[h.key].null_reason)
    return out, metrics["energy_j"].value is not None and is_estimated(data)


def _summary_value(run_dir: Path, key: str) -> Value:
    path = run_dir / SUMMARY_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, f"no readable {path.name} (a replay writes it when it ends)"
    value = doc.get(key) if isinstance(doc, dict) else None
    if isinstance(value, (int, float)):
        return float(value), None
    return None, "no turn was scored by this rule"


def summarize_repeats(group_dir: Path | str, command: str, repeats: int,
                      runs: Sequence[RepeatRun], status: str) -> RepeatsSummary:
    """The group's summary: the complete runs pooled, the notes on what cannot be compared."""
    headlines = REPLAY_HEADLINES if command == "replay" else RUN_HEADLINES
    finished = [r.run_dir for r in runs if r.status == "complete" and r.run_dir is not None]
    read = [_run_values(d, headlines) for d in finished]
    pooled = tuple(pool(h, [values[h.key] for values, _ in read]) for h in headlines)
    notes = [wide_note(m) for m in pooled if m.wide]
    if len(finished) < 2:
        notes.append(f"{len(finished)} finished repetition{'' if len(finished) == 1 else 's'}:"
                     " no spread or interval (use --repeats 3 or more)")
    if any(estimated for _, estimated in read):
        notes.append("energy is a CPU x TDP ESTIMATE, not a measurement")
    invalid = sum(1 for r in runs if r.status == "complete" and r.exit_code == 1)
    if invalid:
        notes.append(f"{invalid} of {len(finished)} finished runs are INVALID (`edgeagent "
                     "check RUN` says why, e.g. host interference): they are pooled too")
    if len(finished) < len(runs):
        notes.append(f"{len(runs) - len(finished)} repetition(s) did not finish and are not "
                     "pooled")
    return RepeatsSummary(str(group_dir), command, status, repeats, tuple(runs),
                          len(finished), pooled, tuple(notes))


def write_repeats(summary: RepeatsSummary) -> Path:
    """repeats.json in the group directory, replaced whole (a temporary file renamed)."""
    path = Path(summary.group_dir) / REPEATS_FILE
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(summary.to_dict(), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc} (choose a writable "
                         "--out)") from exc
    return path


def _num(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.4g}" if abs(x) < 1000 else f"{x:.0f}"


def repeats_text(summary: RepeatsSummary) -> str:
    """The summary as a text table, the notes under it."""
    s = summary
    lines = [f"repeats: {s.finished} of {s.repeats} runs finished ({s.status}) in "
             f"{s.group_dir}",
             f"{'metric':<26} {'n':>2} {'mean':>10} {'sd':>10}  {'95% CI of the mean':<23}"
             f" {'±%':>6}"]
    for m in s.metrics:
        if m.mean is None:
            lines.append(f"{m.label:<26} {m.n:>2} {'n/a':>10}  ({m.null_reason})")
            continue
        ci = f"[{_num(m.ci95[0])}, {_num(m.ci95[1])}]" if m.ci95 else "n/a"
        pct = f"{m.half_width_pct:.1f}%" if m.half_width_pct is not None else "n/a"
        lines.append(f"{m.label:<26} {m.n:>2} {_num(m.mean):>10} {_num(m.sd):>10}  {ci:<23}"
                     f" {pct:>6}{'  WIDE' if m.wide else ''}")
    lines += [f"note: {n}" for n in s.notes]
    lines.append(f"rule: {WIDE_RULE}")
    return "\n".join(lines)
