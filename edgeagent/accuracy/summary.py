"""accuracy_results.json and the text summary of an accuracy run.

Two files. MLPerf's own, accuracy/accuracy_results.json, in the shape its benchmark writes
and its compliance checker and README read (commands/benchmark/accuracy.py,
evaluation/accuracy_results.py, compliance/checker.py): `accuracy_scores` a list holding one
entry, `dataset_name` "bfcl_v4::function_calling", its `score` the overall accuracy in percent
(unrounded) and its `breakdown` the percentages (aggregate.py). And ours, accuracy_results.json:
`accuracy_scores["bfcl_v4::function_calling"]["score"]` holds the same breakdown (the shape
MLPerf's earlier results.json had, which our `check`, `report` and `--rescore` read), and
what is ours sits under `edgeagent`: the sampling and settings, the sample counts, and with a
reference the gate (`overall_accuracy >= 0.97 x reference`, as MLPerf's compliance checker
tests it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..results import write_accuracy_report
from ..rundir import ACCURACY_RESULTS_FILE, ACCURACY_SAMPLES_FILE, MLPERF_RESULTS_FILE
from .aggregate import breakdown, overall_percent
from .rules import CATEGORIES, DATASET_NAME, GATE_FACTOR
from .samples import SampleResult
from .sampling import SamplingPlan


@dataclass(frozen=True)
class Gate:
    metric: str
    measured: float
    reference: float
    factor: float
    threshold: float
    passed: bool

    def line(self) -> str:
        return (f"gate: {self.metric} {self.measured:.2f} >= {self.factor} x "
                f"{self.reference:.2f} = {self.threshold:.2f}: "
                f"{'PASS' if self.passed else 'FAIL'}")


def gate(score: dict[str, Any], reference: float) -> Gate:
    """MLPerf's accuracy gate on overall_accuracy against a reference (in percent)."""
    measured = float(score["overall_accuracy"])
    threshold = reference * GATE_FACTOR
    return Gate("overall_accuracy", measured, reference, GATE_FACTOR, threshold,
                measured >= threshold)


def results_document(samples: Sequence[SampleResult], ids: Sequence[str],
                     info: dict[str, Any], reference: float | None) -> dict[str, Any]:
    """The results of the samples `ids` (in issue order); one not completed, or never run,
    counts as a failure of its subset (`subset_of` in `info` names each id's subset)."""
    done = {s.id: s for s in samples}
    subset_of = info["subset_of"]
    scored = [(done[i].subset, done[i].score) for i in ids if i in done and done[i].completed]
    missing = [subset_of[i] for i in ids if i not in done or not done[i].completed]
    score = breakdown(scored, missing)
    ours = {k: v for k, v in info.items() if k != "subset_of"}
    ours.update(samples_file=ACCURACY_SAMPLES_FILE,
                overall_percent=overall_percent(scored, missing),
                samples_issued=len(ids),
                samples_completed=len(scored),
                samples_dropped=sum(1 for i in ids if i in done and not done[i].completed),
                samples_not_run=sum(1 for i in ids if i not in done),
                gate=asdict(gate(score, reference)) if reference is not None else None)
    return {"accuracy_scores": {DATASET_NAME: {"score": score}}, "edgeagent": ours}


def mlperf_results(document: dict[str, Any]) -> dict[str, Any]:
    """MLPerf's accuracy/accuracy_results.json for our results document: one accuracy entry
    as MLPerf's benchmark fills it for BFCL (one repeat, so `unit_samples` and
    `total_samples` are the samples issued; the breakdown's `total_samples` are the ones
    completed, which the checker's min_sample_count reads)."""
    ours = document["edgeagent"]
    score = ours["overall_percent"]
    entry = {"dataset_name": DATASET_NAME, "extractor": "FunctionCallExtractor",
             "ground_truth_column": "ground_truth", "score": score,
             "unit_samples": ours["samples_issued"], "num_repeats": 1,
             "total_samples": ours["samples_issued"], "complete": True,
             "dataset_type": "accuracy", "breakdown": score_of(document)}
    return {"average_accuracy": score, "accuracy_scores": [entry]}


def write_results(run_dir: Path, document: dict[str, Any]) -> None:
    """Ours, then MLPerf's (its folder made first), then the run as a report directory
    MLPerf's checker loads, mlperf/ (results/mlperf_report.py)."""
    mlperf = run_dir / MLPERF_RESULTS_FILE
    try:
        (run_dir / ACCURACY_RESULTS_FILE).write_text(json.dumps(document, indent=2) + "\n",
                                            encoding="utf-8")
        mlperf.parent.mkdir(exist_ok=True)
        mlperf.write_text(json.dumps(mlperf_results(document), indent=2) + "\n",
                          encoding="utf-8")
        write_accuracy_report(run_dir, MLPERF_RESULTS_FILE, _sampling_seed(document))
    except OSError as exc:
        raise StoreError(f"cannot write {run_dir / ACCURACY_RESULTS_FILE}: "
                         f"{exc.strerror or exc} (free space; the samples are kept in "
                         f"{ACCURACY_SAMPLES_FILE})") from exc


def _sampling_seed(document: dict[str, Any]) -> int:
    """The run's dataloader seed (SamplingPlan.seed, MLPerf's dataloader_random_seed)."""
    sampling = document["edgeagent"].get("sampling") or {}
    return int(sampling.get("seed", SamplingPlan.seed))


def score_of(document: dict[str, Any]) -> dict[str, Any]:
    return document["accuracy_scores"][DATASET_NAME]["score"]


def summary_text(document: dict[str, Any]) -> str:
    """The category table, the subsets, the two scores and the gate."""
    score, ours = score_of(document), document["edgeagent"]
    lines = [f"BFCL v4 single-turn: {ours['samples_completed']}/{ours['samples_issued']} "
             f"samples completed ({ours['samples_dropped']} dropped, "
             f"{ours['samples_not_run']} not run; both count as failures)",
             f"{'category':<24}{'score %':>9}  subsets"]
    for category, subsets in CATEGORIES.items():
        if category in score["category_scores"]:
            present = [f"{s} {score['subset_scores'][s]:.2f}" for s in subsets
                       if s in score["subset_scores"]]
            lines.append(f"{category:<24}{score['category_scores'][category]:>9.2f}  "
                         + ", ".join(present))
    for subset, value in score["unscored_subsets"].items():
        lines.append(f"{subset + ' (unscored)':<24}{value:>9.2f}")
    lines.append(f"{'overall_accuracy':<24}{score['overall_accuracy']:>9.2f}")
    lines.append(f"{'normalized_single_turn':<24}{score['normalized_single_turn_score']:>9.2f}")
    if ours.get("gate"):
        lines.append(Gate(**ours["gate"]).line())
    return "\n".join(lines)
