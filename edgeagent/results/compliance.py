"""MLPerf's compliance checks on a run directory, by MLPerf's names, beside our own verdict
(validity.py): what `edgeagent check` lists under "MLPerf compliance".

The rules are those of MLPerf's checker (mlcommons/endpoints,
src/inference_endpoint/compliance/checker.py: `check_config_lock`, `check_perf_validity`,
`check_accuracy`; the version at commit bf9d12b105a833c1bfeb3365efce091b6bc93a15, which reads
accuracy/accuracy_results.json and compares observed turns with expected ones), read against
our run directory instead of MLPerf's report directory:

- `temperature==0`: config.yaml's `temperature` is 0 (MLPerf: model_params.temperature).
- `seed==42`: at least one seed is set and every seed set is 42 (MLPerf: model_params.seed
  and the dataloader seed; ours: `seed`, plus the seeds a phase names).
- `single_stream`: MLPerf reads num_workers, max_connections and target_concurrency (all 1)
  from its config. A replay has no such knobs, so the check reads what the run did: the
  requests in flight it records (`replay.concurrency`) and run.db's request intervals (each
  step's request start to its last token), which must never overlap.
- `no_dropped_turns`: scores.json's MLPerf turns block has `missing == 0`.
- `all_turns_observed`: `observed == expected` in that block, both over the turns with
  ground truth (MLPerf's scorer counts `issued` over every issued turn, so a turn without
  ground truth, excluded from the score, would fail an `observed == issued` test; MLPerf's
  checker compares with `expected` for that reason, and so do we).
- the accuracy gate (`--reference X`): measured >= 0.97 x X, the factor of MLPerf's edge
  ruleset (3% one-sided). MLPerf gates the accuracy phase's BFCL score and never the
  performance phase's inline score: on a replay run the gate, `accuracy:inline_score`, is
  ours on MLPerf's pattern and is marked so (`mlperf: false`).
- on an accuracy run (`edgeagent accuracy`, suite `accuracy:bfcl_v4`), `check_accuracy`'s:
  `accuracy:overall_accuracy` (with `--reference X`, a percentage), read from the breakdown
  of MLPerf's file, accuracy/accuracy_results.json (the first `accuracy_scores` list entry
  whose breakdown has subset_scores; our accuracy_results.json for a run written before
  that file), and `min_sample_count`, its `total_samples` (the samples scored, read as a
  number) >= the ruleset's min_sample_count_valid, 995. MLPerf's ruleset also has a
  golden normalized_single_turn_score (87.96); one `--reference` gates overall_accuracy only.

A missing artifact fails a check named as MLPerf names it (config_present,
scorer_output_present, perf_turns_present, accuracy_results_present). OVERALL passes when
every check does. Each kind of run MLPerf checks is a Phase (PHASES): a replay run is the
performance phase, an accuracy run the accuracy phase.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..rundir import ACCURACY_RESULTS_FILE, CONFIG_FILE, MLPERF_RESULTS_FILE, SCORES_FILE
from .accuracy_run import DATASET_NAME, MIN_SAMPLE_COUNT
from .metrics import RunData
from .outcomes import is_accuracy

CHECKER = "mlcommons/endpoints src/inference_endpoint/compliance/checker.py"
REFERENCE_FACTOR = 0.97  # MLPerf edge ruleset's accuracy_target_settings: 3% one-sided
REQUIRED_SEED = 42


@dataclass(frozen=True)
class Check:
    name: str  # MLPerf's name for the check
    passed: bool
    detail: str  # the values the check compared
    mlperf: bool = True  # False: a check of ours on MLPerf's pattern, not in its checker


@dataclass(frozen=True)
class Compliance:
    phase: str  # MLPerf's phase: performance (a replay) or accuracy
    checks: tuple[Check, ...]
    manual: tuple[str, ...] = ()  # what the run directory cannot show: to attest by hand
    preset: str | None = None  # the run-settings preset the run was made with, if any

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "overall": "PASS" if self.passed else "FAIL",
                "passed": self.passed, "preset": self.preset,
                "checks": [asdict(c) for c in self.checks], "manual": list(self.manual),
                "rules": CHECKER}


@dataclass(frozen=True)
class Phase:
    """A kind of run MLPerf checks: which runs it is, their seeds, their own checks, and the
    range a `--reference` for its score must lie in (a fraction or a percentage)."""

    name: str
    applies: Callable[[RunData], bool]
    seed_keys: tuple[tuple[str, ...], ...]  # config.yaml paths of the seeds it sets
    checks: Callable[[RunData, Path, float | None], list[Check]]
    reference_range: tuple[float, float]
    reference_hint: str


def _get(doc: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(key)
    return doc


def accuracy_gate(name: str, measured: float | None, reference: float, *,
                  mlperf: bool = True, note: str = "", places: int = 4) -> Check:
    """MLPerf's gate: PASS when `measured` >= REFERENCE_FACTOR x `reference` (`places`:
    the digits shown, 2 for a percentage as MLPerf prints it)."""
    threshold = REFERENCE_FACTOR * reference
    if measured is None:
        return Check(name, False, f"metric missing{note}", mlperf)
    return Check(name, measured >= threshold,
                 f"{measured:.{places}f} >= {threshold:.{places}f} (={REFERENCE_FACTOR} x "
                 f"{reference:g}){note}", mlperf)


def max_in_flight(steps: Sequence[dict[str, Any]]) -> int:
    """The most requests whose [start, last token] intervals overlap at any instant.

    The step clocks are monotonic, which restart with each boot: a run resumed on another
    machine (or after a reboot) has segments whose monotonic times overlap although they
    ran hours apart. So each interval is placed on the wall clock at its `wall_start`
    (time.time() just before the request) and keeps its monotonic length."""
    edges: list[tuple[int, int]] = []
    for s in steps:
        start = s.get("t_start_ns")
        if start is None:
            continue
        end = s.get("t_decode_end_ns") or s.get("t_first_token_ns") or start
        wall = s.get("wall_start")
        origin = round(wall * 1e9) if wall is not None else start
        edges += [(origin, 1), (origin + end - start, -1)]
    # an end sorts before a start at the same instant: back-to-back requests never overlap
    edges.sort()
    most = now = 0
    for _, delta in edges:
        now += delta
        most = max(most, now)
    return most


def config_lock(data: RunData, phase: Phase) -> list[Check]:
    """temperature==0, seed==42 and single_stream, from config.yaml and run.db."""
    config = data.config
    temperature = config.get("temperature")
    seeds = {".".join(path): _get(config, *path) for path in phase.seed_keys}
    given = {k: v for k, v in seeds.items() if v is not None}
    recorded = _get(config, "replay", "concurrency")
    in_flight = max_in_flight(data.steps)
    return [
        Check("temperature==0", temperature == 0, f"temperature={temperature}"),
        Check("seed==42", bool(given) and all(v == REQUIRED_SEED for v in given.values()),
              ", ".join(f"{k}={v}" for k, v in seeds.items())),
        Check("single_stream", in_flight == 1 and recorded in (None, 1),
              f"max_in_flight={in_flight} over {len(data.steps)} requests (run.db request "
              f"intervals), recorded concurrency={recorded}"),
    ]


def _scores(run_dir: Path) -> dict[str, Any] | None:
    path = run_dir / SCORES_FILE
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}  # a torn file: no turns block, which the check reports
    # MLPerf's shape is top-level, as ours is now; a replay written before nested it
    # under `mlperf` (beside a list `turns` of ours), which is read here too
    block = doc.get("mlperf") if isinstance(doc, dict) else None
    return block if isinstance(block, dict) else doc if isinstance(doc, dict) else {}


def performance_checks(data: RunData, run_dir: Path, reference: float | None) -> list[Check]:
    """no_dropped_turns and all_turns_observed from scores.json's MLPerf turns block, and
    with a reference the gate on its inline score (ours: MLPerf gates no inline score)."""
    scores = _scores(run_dir)
    if scores is None:
        return [Check("scorer_output_present", False,
                      f"no {SCORES_FILE} in {run_dir} (a replay writes it when it ends)")]
    turns = scores.get("turns")
    if not isinstance(turns, dict):
        return [Check("perf_turns_present", False, f"no turns block in {SCORES_FILE}")]
    issued, observed, missing = turns.get("issued"), turns.get("observed"), turns.get("missing")
    expected = turns.get("expected")
    checks = [
        Check("no_dropped_turns", missing == 0,
              f"missing={missing} (issued={issued}, observed={observed})"),
        Check("all_turns_observed", expected is not None and observed == expected,
              f"observed={observed} == expected={expected} (issued={issued})"),
    ]
    if reference is not None:
        checks.append(accuracy_gate(
            "accuracy:inline_score", scores.get("score"), reference, mlperf=False,
            note="; edgeagent's gate: MLPerf's checker gates only the accuracy phase"))
    return checks


@dataclass(frozen=True)
class AccuracyScore:
    """The accuracy block `check_accuracy` reads."""

    block: dict[str, Any]  # the breakdown: overall_accuracy, total_samples, ...
    headline: Any  # the entry's scalar score (MLPerf's fallback for overall_accuracy)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing or torn: the check reports it


def _mlperf_entry(doc: Any) -> dict[str, Any] | None:
    """MLPerf's `find_accuracy_entry`: the first entry of the `accuracy_scores` list whose
    `breakdown` holds `subset_scores`."""
    entries = doc.get("accuracy_scores") if isinstance(doc, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        block = entry.get("breakdown") if isinstance(entry, dict) else None
        if isinstance(block, dict) and "subset_scores" in block:
            return entry
    return None


def _legacy_block(doc: Any) -> dict[str, Any] | None:
    """Our accuracy_results.json (MLPerf's earlier results.json shape): the first
    `accuracy_scores` value whose `score` holds overall_accuracy."""
    entries = doc.get("accuracy_scores") if isinstance(doc, dict) else None
    for entry in (entries.values() if isinstance(entries, dict) else ()):
        score = entry.get("score") if isinstance(entry, dict) else None
        if isinstance(score, dict) and "overall_accuracy" in score:
            return score
    return None


def accuracy_score(run_dir: Path) -> AccuracyScore | None:
    """The accuracy block as MLPerf's checker finds it, in MLPerf's own file
    (accuracy/accuracy_results.json); for a run written before we wrote that file, in ours
    (accuracy_results.json). None when neither holds one."""
    entry = _mlperf_entry(_json(run_dir / MLPERF_RESULTS_FILE))
    if entry is not None:
        return AccuracyScore(entry["breakdown"], entry.get("score"))
    block = _legacy_block(_json(run_dir / ACCURACY_RESULTS_FILE))
    return AccuracyScore(block, None) if block is not None else None


def _number(value: Any) -> float | None:
    """A metric as a number (MLPerf's `to_float`): older results hold them as text
    ("86.23")."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def accuracy_checks(data: RunData, run_dir: Path, reference: float | None) -> list[Check]:
    """check_accuracy's checks on the accuracy results: with a reference the gate on
    overall_accuracy (the entry's score when the block has none, as MLPerf falls back),
    then min_sample_count (total_samples read as a number, as MLPerf reads it)."""
    found = accuracy_score(run_dir)
    if found is None:
        return [Check("accuracy_results_present", False,
                      f"no accuracy score in {run_dir / MLPERF_RESULTS_FILE} (an accuracy "
                      "run writes it when it ends; `edgeagent accuracy --rescore RUN_DIR` "
                      "writes it again)")]
    block, checks = found.block, []
    if reference is not None:
        measured = _number(block.get("overall_accuracy"))
        measured = _number(found.headline) if measured is None else measured
        checks.append(accuracy_gate("accuracy:overall_accuracy", measured, reference,
                                    places=2))
    total = block.get("total_samples")
    issued = block.get("issued_samples")
    of = f" (the samples scored, of {issued} issued)" if issued is not None else ""
    count = _number(total)
    checks.append(Check("min_sample_count",
                        count is not None and count >= MIN_SAMPLE_COUNT,
                        f"total_samples={total} >= {MIN_SAMPLE_COUNT}{of}"))
    return checks


def is_replay(data: RunData) -> bool:
    return "replay" in data.config or str(data.config.get("suite", "")).startswith("replay:")


PERFORMANCE = Phase(
    "performance", is_replay, (("seed",),), performance_checks, (0.0, 1.0),
    "the inline score is a fraction in [0, 1] (MLPerf's reference run: 0.6335)")
ACCURACY = Phase(
    "accuracy", is_accuracy, (("seed",),), accuracy_checks, (0.0, 100.0),
    f"overall_accuracy is a percentage ({DATASET_NAME}; MLPerf's reference: 86.23)")
PHASES: tuple[Phase, ...] = (PERFORMANCE, ACCURACY)


def _manual(data: RunData) -> tuple[str, ...]:
    """MLPerf asks to attest the server's flags, which its artifacts do not hold; an
    in-process run has no server, and its context is in config.yaml."""
    endpoint = data.config.get("endpoint")
    if not endpoint:
        return ()
    return (f"verify the server at {endpoint} was launched with --reasoning off and one slot "
            "(-np 1): server flags are not in the run directory",)


def check_compliance(run_dir: Path | str, data: RunData,
                     reference: float | None = None) -> Compliance | None:
    """MLPerf's checks for the phase the run is; None for a run of no MLPerf phase (a live
    run). A `reference` outside the phase's range is a user error."""
    run_dir = Path(run_dir)
    phase = next((p for p in PHASES if p.applies(data)), None)
    if phase is None:
        return None
    low, high = phase.reference_range
    if reference is not None and not low < reference <= high:
        raise UserError(f"--reference {reference:g}: {phase.reference_hint}; give the "
                        f"reference score in ({low:g}, {high:g}]")
    checks: list[Check] = []
    if not (run_dir / CONFIG_FILE).is_file():
        checks.append(Check("config_present", False, f"missing {run_dir / CONFIG_FILE}"))
    else:
        checks += config_lock(data, phase)
    checks += phase.checks(data, run_dir, reference)
    preset = _get(data.config, "replay", "preset", "name")
    return Compliance(phase.name, tuple(checks), _manual(data), preset)


def compliance_lines(compliance: Compliance | None) -> list[str]:
    """The section `check` prints under its verdict, in the shape of MLPerf's report."""
    if compliance is None:
        return ["MLPerf compliance: not checked (a live run is no MLPerf phase; replay "
                "and accuracy runs are)"]
    preset = f"; run with the {compliance.preset} preset" if compliance.preset else ""
    lines = [f"MLPerf compliance ({compliance.phase} phase{preset}; rules of {CHECKER}):"]
    for c in compliance.checks:
        mark = "PASS" if c.passed else "FAIL"
        lines.append(f"  [{mark}] {c.name}: {c.detail}")
    lines += [f"  [MANUAL] {note}" for note in compliance.manual]
    lines.append(f"  OVERALL: {'PASS' if compliance.passed else 'FAIL'}")
    return lines
