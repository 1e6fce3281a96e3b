"""scores.json as MLPerf's AgenticInferenceInlineScorer writes it (mlcommons/endpoints,
src/inference_endpoint/evaluation/scoring.py `score()`), and as MLPerf's compliance checker
(compliance/checker.py `check_perf_validity`) and its README read it: at the top level."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from edgeagent.replay.result_summary import scores_json
from edgeagent.results.compliance import performance_checks
from edgeagent.rundir import SCORES_FILE


def turn(conv: str, n: int, score: float | None, status: str = "completed",
         truth: tuple[str, ...] = ("ls",), predicted: tuple[str, ...] | None = ("ls",),
         domain: str = "coding") -> dict[str, Any]:
    """A replay_turns.jsonl row, the fields the scores read."""
    return {"conversation_id": conv, "turn": n, "status": status, "score": score,
            "reference_executables": list(truth),
            "predicted_executables": None if predicted is None else list(predicted),
            "domain": domain}


TURNS = [
    turn("django-1", 2, 0.5, truth=("cat", "grep"), predicted=("cat",)),
    turn("django-1", 4, 0.0, status="dropped", truth=("git",), predicted=None),
    turn("django-1", 6, None, truth=(), predicted=("ls",)),  # `echo` only: no ground truth
    turn("sim_7", 2, 1.0, truth=("I042",), predicted=("I042",), domain="workflow"),
    turn("sim_7", 4, 0.0, status="dropped", truth=("I001", "I003"), predicted=None,
         domain="workflow"),
]


def mlperf_perf_validity(scores: dict[str, Any]) -> dict[str, bool]:
    """The two run-validity checks as MLPerf's checker computes them from scores.json."""
    turns = scores.get("turns")
    assert isinstance(turns, dict), "MLPerf: perf_turns_present FAIL (no turns block)"
    return {"no_dropped_turns": turns.get("missing") == 0,
            "all_turns_observed": turns.get("expected") is not None
            and turns.get("observed") == turns.get("expected")}


def test_scores_json_is_mlperfs_document_at_the_top_level() -> None:
    doc = scores_json(TURNS)
    assert list(doc) == ["score", "turns", "domains", "per_turn", "excluded_turns"]
    assert doc["score"] == round((0.5 + 0.0 + 1.0 + 0.0) / 4, 4)
    assert doc["turns"] == {"issued": 5, "expected": 4, "observed": 2, "missing": 2,
                            "scored": 4}
    assert doc["domains"] == {"coding": {"score": 0.25, "scored": 2},
                              "workflow": {"score": 0.5, "scored": 2}}
    # what MLPerf's README prints and its checker gates, read where they read them
    assert mlperf_perf_validity(doc) == {"no_dropped_turns": False,
                                         "all_turns_observed": False}


def test_per_turn_rows_are_mlperfs() -> None:
    assert scores_json(TURNS)["per_turn"] == [
        {"conversation_id": "django-1", "repeat": 1, "turn": 2, "domain": "coding",
         "gt_actions": ["cat", "grep"], "model_actions": ["cat"], "score": 0.5},
        # issued without output: MLPerf scores an empty assistant message
        {"conversation_id": "django-1", "repeat": 1, "turn": 4, "domain": "coding",
         "missing": True, "gt_actions": ["git"], "model_actions": [], "score": 0.0},
        {"conversation_id": "sim_7", "repeat": 1, "turn": 2, "domain": "workflow",
         "gt_intents": ["I042"], "model_intent": "I042", "score": 1.0},
        {"conversation_id": "sim_7", "repeat": 1, "turn": 4, "domain": "workflow",
         "missing": True, "gt_intents": ["I001", "I003"], "model_intent": None,
         "score": 0.0},
    ]
    assert scores_json(TURNS)["excluded_turns"] == [
        {"conversation_id": "django-1", "turn": 6, "domain": "coding",
         "exclude_reason": "no ground truth"}]


def test_a_per_turn_score_is_rounded_to_4_places_and_the_mean_is_not_of_rounded_ones() -> None:
    third = turn("c", 2, 1 / 3, truth=("cat", "grep", "ls"), predicted=("cat",))
    (row,) = scores_json([third])["per_turn"]
    assert row["score"] == 0.3333
    doc = scores_json([third, turn("c", 4, 1 / 3), turn("c", 6, 1 / 3)])
    assert doc["score"] == round((1 / 3 + 1 / 3 + 1 / 3) / 3, 4) == 0.3333


def test_the_mean_sums_in_mlperfs_order_conversation_id_then_turn() -> None:
    """MLPerf sums the scores sorted by conversation id and turn; a mean on a rounding edge
    (3.45 / 8 = 0.43125) rounds to another 4th decimal when summed in file order."""
    values = [0.5, 0.4, 0.4, 0.0, 0.4, 0.5, 1.0, 0.25]
    # a file whose conversations are not in sorted order ("b" first): file order reverses
    # MLPerf's order
    turns = [turn("b", 2 * (4 - i), v) for i, v in enumerate(values[:4])] + \
            [turn("a", 2 * (4 - i), v) for i, v in enumerate(values[4:])]
    mlperf_order = sorted(turns, key=lambda t: (t["conversation_id"], t["turn"]))
    total = 0.0
    for t in mlperf_order:
        total += t["score"]
    expected = round(total / len(turns), 4)
    assert expected != round(sum(t["score"] for t in turns) / len(turns), 4)  # the edge
    doc = scores_json(turns)
    assert doc["score"] == expected
    assert doc["domains"]["coding"]["score"] == expected
    assert [(r["conversation_id"], r["turn"]) for r in doc["per_turn"]] == \
        [(t["conversation_id"], t["turn"]) for t in mlperf_order]


def write_scores(run_dir: Path, doc: dict[str, Any]) -> Path:
    (run_dir / SCORES_FILE).write_text(json.dumps(doc))
    return run_dir


def test_all_turns_observed_compares_observed_with_expected(tmp_path: Path) -> None:
    """A turn without ground truth is issued but never expected or observed: a run whose
    every turn completed passes, as MLPerf's checker passes it."""
    turns = [turn("c", 2, 1.0), turn("c", 4, None, truth=())]
    run_dir = write_scores(tmp_path, scores_json(turns))
    checks = {c.name: c for c in performance_checks(None, run_dir, None)}  # type: ignore[arg-type]
    assert checks["no_dropped_turns"].passed
    assert checks["all_turns_observed"].passed
    assert checks["all_turns_observed"].detail == "observed=1 == expected=1 (issued=2)"
    dropped = [turn("c", 2, 0.0, status="dropped", predicted=None), turn("c", 4, None)]
    checks = {c.name: c for c in performance_checks(
        None, write_scores(tmp_path, scores_json(dropped)), None)}  # type: ignore[arg-type]
    assert not checks["no_dropped_turns"].passed and not checks["all_turns_observed"].passed


def test_a_scores_json_written_before_is_still_read(tmp_path: Path) -> None:
    """Older replays nested MLPerf's block under `mlperf` beside a list `turns` of ours."""
    old = {"mean": 1.0, "turns": [{"conversation_id": "c", "turn": 2}],
           "mlperf": {"score": 1.0, "turns": {"issued": 1, "expected": 1, "observed": 1,
                                              "missing": 0, "scored": 1}}}
    checks = performance_checks(None, write_scores(tmp_path, old), None)  # type: ignore[arg-type]
    assert [c.passed for c in checks] == [True, True]
