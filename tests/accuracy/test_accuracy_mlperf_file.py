"""The accuracy results where MLPerf's own code reads them: accuracy/accuracy_results.json,
`accuracy_scores` a list of per-dataset entries, the BFCL entry's `score` a percentage and its
`breakdown` the percentages (mlcommons/endpoints commands/benchmark/accuracy.py
`write_accuracy_results`, evaluation/accuracy_results.py `find_accuracy_entry`,
compliance/checker.py `check_submission` / `check_accuracy`, and the Edge Agentic README's
"Verify the results"), and `edgeagent check` reading it as MLPerf's checker does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edgeagent.accuracy.samples import SampleResult
from edgeagent.accuracy.summary import results_document, write_results
from edgeagent.results.compliance import accuracy_checks
from edgeagent.rundir import ACCURACY_RESULTS_FILE, MLPERF_RESULTS_FILE

SUBSETS = {"irrelevance_0": "irrelevance", "irrelevance_1": "irrelevance",
           "live_simple_0": "live_simple", "live_simple_1": "live_simple"}


def sample(rid: str, valid: bool, status: str = "completed") -> SampleResult:
    return SampleResult(rid, SUBSETS[rid], None, 0, status, None, "", (), "", (), False,
                        valid, "no_call")


def written(tmp_path: Path) -> dict[str, Any]:
    """Two right, one wrong, one never answered (a failure of its subset): 2/4."""
    samples = [sample("irrelevance_0", True), sample("irrelevance_1", False),
               sample("live_simple_0", True),
               sample("live_simple_1", False, status="context_overflow")]
    document = results_document(samples, list(SUBSETS), {"subset_of": SUBSETS}, None)
    write_results(tmp_path, document)
    return document


def readme_overall(run_dir: Path) -> Any:
    """The README's own lines (Step 4, "Verify the results")."""
    r = json.loads((run_dir / "accuracy" / "accuracy_results.json").read_text())
    e = next(x for x in r["accuracy_scores"] if x["dataset_name"] == "bfcl_v4::function_calling")
    return e["breakdown"]["overall_accuracy"]


def test_mlperfs_file_is_written_where_and_as_mlperf_writes_it(tmp_path: Path) -> None:
    document = written(tmp_path)
    doc = json.loads((tmp_path / MLPERF_RESULTS_FILE).read_text())
    (entry,) = doc["accuracy_scores"]
    assert entry["dataset_name"] == "bfcl_v4::function_calling"
    assert entry["dataset_type"] == "accuracy" and entry["num_repeats"] == 1
    # the headline over the issued samples, in percent (the scale MLPerf's checker gives the
    # BFCL headline) and unrounded; the breakdown rounded to 2
    assert entry["score"] == 50.0 and doc["average_accuracy"] == 50.0
    assert entry["unit_samples"] == entry["total_samples"] == 4
    breakdown = entry["breakdown"]
    assert breakdown == document["accuracy_scores"]["bfcl_v4::function_calling"]["score"]
    assert breakdown["overall_accuracy"] == 50.0 and "subset_scores" in breakdown
    assert breakdown["total_samples"] == 3 and breakdown["issued_samples"] == 4
    assert readme_overall(tmp_path) == 50.0


def test_the_headline_percentage_is_not_rounded(tmp_path: Path) -> None:
    samples = [sample("irrelevance_0", True), sample("irrelevance_1", False),
               sample("live_simple_0", False)]
    ids = ["irrelevance_0", "irrelevance_1", "live_simple_0"]
    write_results(tmp_path, results_document(samples, ids, {"subset_of": SUBSETS}, None))
    (entry,) = json.loads((tmp_path / MLPERF_RESULTS_FILE).read_text())["accuracy_scores"]
    assert entry["score"] == pytest.approx(100 / 3, rel=1e-12)  # not 33.33
    assert entry["breakdown"]["overall_accuracy"] == 33.33


def checks(run_dir: Path, reference: float | None = 86.23) -> dict[str, Any]:
    return {c.name: c for c in accuracy_checks(None, run_dir, reference)}  # type: ignore[arg-type]


def test_check_reads_mlperfs_file_as_mlperfs_checker_does(tmp_path: Path) -> None:
    written(tmp_path)
    (tmp_path / ACCURACY_RESULTS_FILE).unlink()  # MLPerf's file alone is enough
    found = checks(tmp_path)
    assert found["accuracy:overall_accuracy"].detail.startswith("50.00 >= 83.64")
    assert found["min_sample_count"].detail.startswith("total_samples=3 >= 995")
    # MLPerf reads total_samples as a number (`to_float`): text counts too
    path = tmp_path / MLPERF_RESULTS_FILE
    doc = json.loads(path.read_text())
    doc["accuracy_scores"][0]["breakdown"].update(total_samples="995",
                                                  overall_accuracy="86.23")
    # an entry without a breakdown (a perf-scored one) comes first: it is passed over
    doc["accuracy_scores"].insert(0, {"dataset_name": "agentic_coding", "score": 0.63,
                                      "dataset_type": "performance"})
    path.write_text(json.dumps(doc))
    found = checks(tmp_path)
    assert found["min_sample_count"].passed and found["accuracy:overall_accuracy"].passed


def test_a_run_written_before_mlperfs_file_is_read_from_ours(tmp_path: Path) -> None:
    written(tmp_path)
    (tmp_path / MLPERF_RESULTS_FILE).unlink()
    assert checks(tmp_path)["min_sample_count"].detail.startswith("total_samples=3 >= 995")
    (tmp_path / ACCURACY_RESULTS_FILE).unlink()
    assert not checks(tmp_path)["accuracy_results_present"].passed
