"""A replay's summary in the style of MLPerf's result_summary.json, from its run directory.

Per-turn latency (request start to last token), TTFT and TPOT as mean/p50/p90/p99, input and
output sequence lengths, KV reuse, duration, turns completed and dropped, the verdict of
`edgeagent check` (one verdict for every command) with its reasons, the inline score and,
where a power source covered the turns, energy per turn in mJ (prefill + decode phases);
energy is null with the reason otherwise. Beside ours, the metrics MLPerf's endpoints tool
also reports, under its names and units (endpoints_schema.py: ttft, tpot, latency in ns,
input/output_sequence_lengths, n_samples_*, duration_ns, qps, tps).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..results import (
    Verdict,
    check_run,
    min_samples_for,
    percentile,
    verdict_lines,
    write_replay_report,
)
from ..rundir import (
    REPORT_FILE,
    SCORES_FILE,
    SUMMARY_FILE,
    read_run,
    turns_of,
)
from .endpoints_schema import endpoints_fields
from .score import mean_score, scored_mean


def stats(values: Sequence[float | None]) -> dict[str, float | int | None] | None:
    """Count, mean, min, max and percentiles; a percentile is null below the samples the
    report's rule asks for (p90: 10, p99: 100), as in `edgeagent report`."""
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return None
    out: dict[str, float | int | None] = {"count": len(xs), "mean": sum(xs) / len(xs),
                                          "min": min(xs), "max": max(xs)}
    for q in (50, 90, 99):
        out[f"p{q}"] = percentile(xs, q) if len(xs) >= min_samples_for(q / 100) else None
    return out


def summarize_turns(run_dir: Path, settings: dict[str, Any]
                    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """result_summary.json's content, and the turns it was made from."""
    run_dir = Path(run_dir)
    stored = read_run(run_dir, samples=False)
    turns = turns_of(stored, run_dir)  # read once: the summary and scores.json share them
    run = stored.run
    # every kept step by (conversation, step): a resumed replay's superseded attempts left out
    steps = {(r["task_id"], r["step"]): r for r in stored.steps}
    done = [t for t in turns if t["status"] == "completed"]
    dropped = [t for t in turns if t["status"] == "dropped"]
    verdict = check_run(run_dir)  # the one verdict, as `edgeagent check` gives it
    gen_s = sum((t["latency_ms"] or 0) for t in done) / 1000
    out_tokens = sum(t["decoded_tokens"] or 0 for t in done)
    summary = {
        "benchmark": "edgeagent replay (MLPerf Inference Edge Agentic compatible, teacher-forced)",
        "run_id": run["run_id"] if run else None,
        "run_status": run["status"] if run else None,
        "result": verdict.result,
        "valid": verdict.valid,
        "invalid_reasons": _reasons(verdict, turns, dropped, settings, run),
        "smoke": verdict.smoke,
        "verdict_lines": verdict_lines(verdict),
        "conversations": len({t["conversation_id"] for t in turns}),
        "turns_total": len(turns),
        "turns_completed": len(done),
        "turns_dropped": len(dropped),
        "duration_s": (run["wall_ms"] or 0) / 1000 if run and run["wall_ms"] else None,
        **{key: stats([t[field] for t in done]) for key, field in _TURN_STATS},
        "output_tokens_per_s": out_tokens / gen_s if gen_s > 0 else None,
        **_energy_fields(done, steps),
        # MLPerf's inline score: the mean over turns with ground truth, summed in MLPerf's
        # order (unrounded here; scores.json's `score` is it rounded to 4 places)
        "inline_score": scored_mean(t["score"] for t in _mlperf_order(turns)),
        "inline_score_turns": sum(1 for t in turns if t["score"] is not None),
        # our own tools' rule (score.own_actions), kept apart from MLPerf's score
        "own_inline_score": scored_mean(t.get("own_score") for t in turns),
        # the same metrics under MLPerf endpoints' names and units, for its readers
        **endpoints_fields(turns, run["status"] if run else None,
                           run["wall_ms"] if run else None),
        "settings": settings,
    }
    return summary, turns


# (summary key, turn field) of each per-turn distribution, in the summary's order
_TURN_STATS = (("latency_ms", "latency_ms"), ("ttft_ms", "ttft_ms"), ("tpot_ms", "tpot_ms"),
               ("isl_tokens", "context_tokens"), ("osl_tokens", "decoded_tokens"),
               ("reused_tokens", "reused_tokens"), ("prefill_tokens", "prefill_tokens"))


def _reasons(verdict: Verdict, turns: Sequence[dict[str, Any]],
             dropped: Sequence[dict[str, Any]], settings: dict[str, Any], run: Any) -> list[str]:
    """The verdict's reasons, then the first dropped turn and the turns never attempted."""
    reasons = list(verdict.reasons)
    if dropped:
        reasons.append(f"first dropped turn: {dropped[0]['conversation_id']} turn "
                       f"{dropped[0]['turn']}: {dropped[0]['reason']}")
    expected = settings.get("assistant_turns")
    if expected is not None and len(turns) < expected and verdict.reasons:
        reasons.append(f"{expected - len(turns)} turn(s) not attempted (run {run['status']})")
    return reasons


def _energy_fields(done: Sequence[dict[str, Any]],
                   steps: dict[tuple[str, int], Any]) -> dict[str, Any]:
    """Energy per turn (prefill + decode, mJ) when every completed turn was metered; null
    with the first reason otherwise."""
    energy_mj: list[float | None] = []
    energy_reason = None
    source = scope = None
    for t in done:
        s = steps.get((t["conversation_id"], t["step"]))
        pre, dec = (s["energy_prefill_j"], s["energy_decode_j"]) if s else (None, None)
        if pre is None or dec is None:
            energy_mj.append(None)
            energy_reason = energy_reason or (s["energy_prefill_null_reason"] if s else
                                              "step not recorded")
        else:
            energy_mj.append((pre + dec) * 1000)
            source, scope = s["energy_prefill_source"], s["energy_prefill_scope"]
    measured = [e for e in energy_mj if e is not None]
    every = len(measured) == len(done) and bool(done)
    return {
        "energy_per_turn_mJ": stats(measured) if every else None,
        "energy_source": source if every else None,
        "energy_scope": scope if every else None,
        "energy_null_reason": None if every else (energy_reason or "no turn completed"),
    }


def scores_json(turns: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """scores.json: exactly the document MLPerf's AgenticInferenceInlineScorer writes, at the
    top level, since MLPerf's compliance checker (`check_perf_validity`: `turns`) and its
    README (`score`, `turns.missing`) read it there. Ours per turn (own_score, the
    generated text) is in replay_turns.jsonl, the unrounded mean in result_summary.json."""
    return mlperf_scores(turns)


def _mlperf_order(turns: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns in the order MLPerf's scorer walks and sums them: by conversation id, then
    turn. Float addition is not associative; a mean on a rounding edge (0.43125) rounds to
    another 4th decimal when summed in another order."""
    return sorted(turns, key=lambda t: (t["conversation_id"], t["turn"]))


def _domain(turn: dict[str, Any]) -> str:
    return turn.get("domain") or "coding"


def per_turn_row(turn: dict[str, Any]) -> dict[str, Any]:
    """One scored turn as a row of MLPerf's `per_turn` (one repeat; a dropped turn is issued
    without output: `missing`, no model actions or intent)."""
    domain = _domain(turn)
    row: dict[str, Any] = {"conversation_id": turn["conversation_id"], "repeat": 1,
                           "turn": turn["turn"], "domain": domain}
    if turn["status"] != "completed":
        row["missing"] = True
    truth = list(turn.get("reference_executables") or ())
    predicted = list(turn.get("predicted_executables") or ())
    if domain == "workflow":
        row["gt_intents"] = sorted(truth)
        row["model_intent"] = predicted[0] if predicted else None
    else:
        row["gt_actions"] = truth
        row["model_actions"] = predicted
    row["score"] = round(turn["score"], 4)
    return row


def mlperf_scores(turns: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The result in the shape of MLPerf's scores.json (one repeat: every turn issued once;
    a dropped turn is issued without output)."""
    ordered = _mlperf_order(turns)
    scored = [t for t in ordered if t["score"] is not None]
    observed = [t for t in scored if t["status"] == "completed"]
    domains = {}
    for domain in ("coding", "workflow"):
        mine = [t["score"] for t in scored if _domain(t) == domain]
        if mine:
            domains[domain] = {"score": mean_score(mine), "scored": len(mine)}
    out: dict[str, Any] = {
        "score": mean_score(t["score"] for t in scored),
        "turns": {"issued": len(turns), "expected": len(scored), "observed": len(observed),
                  "missing": len(scored) - len(observed), "scored": len(scored)},
        "domains": domains,
        "per_turn": [per_turn_row(t) for t in scored],
    }
    excluded = [{"conversation_id": t["conversation_id"], "turn": t["turn"],
                 "domain": _domain(t), "exclude_reason": "no ground truth"}
                for t in ordered if t["score"] is None]
    if excluded:
        out["excluded_turns"] = excluded
    return out


def write_summary(run_dir: Path, settings: dict[str, Any]) -> dict[str, Any]:
    summary, turns = summarize_turns(run_dir, settings)
    (Path(run_dir) / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n")
    (Path(run_dir) / SCORES_FILE).write_text(json.dumps(scores_json(turns), indent=2) + "\n")
    (Path(run_dir) / REPORT_FILE).write_text(summary_text(summary) + "\n")
    # the same result as a report directory MLPerf's checker loads (results/mlperf_report.py)
    write_replay_report(Path(run_dir), SCORES_FILE)
    return summary


def summary_text(summary: dict[str, Any]) -> str:
    def ms(key: str) -> str:
        s = summary.get(key)
        if not s:
            return "n/a"
        qs = " ".join(f"{q} {s[q]:.1f}" for q in ("p50", "p90") if s.get(q) is not None)
        return f"mean {s['mean']:.1f}{' ' + qs if qs else ''} ms" + (
            "" if s.get("p90") is not None
            else f" (p90 needs {min_samples_for(0.9)} turns, {s['count']} made)")

    energy = summary["energy_per_turn_mJ"]
    score = summary["inline_score"]
    lines = [
        *summary["verdict_lines"],
        f"turns {summary['turns_completed']}/{summary['turns_total']} completed, "
        f"{summary['turns_dropped']} dropped, {summary['conversations']} conversations, "
        f"{summary['duration_s'] or 0:.1f} s",
        f"turn latency {ms('latency_ms')}; TTFT {ms('ttft_ms')}; TPOT {ms('tpot_ms')}",
        (f"inline score {score:.4f}" if score is not None else "inline score n/a")
        + (f" (own tools {own:.4f})" if (own := summary.get("own_inline_score")) is not None
           else ""),
        f"energy per turn mean {energy['mean']:.0f} mJ ({summary['energy_source']})" if energy
        else f"energy per turn n/a ({summary['energy_null_reason']})",
    ]
    return "\n".join(lines)
