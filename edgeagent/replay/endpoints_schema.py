"""The metrics a replay shares with MLPerf's endpoints tool, under that tool's own names and
shapes, for result_summary.json (beside ours): a file its readers can take as theirs.

Names and shapes follow mlcommons/endpoints:
- src/inference_endpoint/metrics/report.py (commit 03cd909097caf5b7afb13daaa82dee5c6f439806):
  `Report` serialised as result_summary.json: n_samples_issued, n_samples_completed,
  n_samples_failed, duration_ns, state, complete, ttft, tpot, latency,
  output_sequence_lengths, qps, tps; each series block is `_series_to_metric_dict`'s total,
  min, max, median, avg, std_dev, percentiles, histogram (times in nanoseconds);
- src/inference_endpoint/async_utils/services/metrics_aggregator/registry.py (commit
  021c223cd202d56a797d90cd6cc40864ca4ef573): the exact (final) series path, percentiles
  DEFAULT_PERCENTILES by numpy's "lower" method keyed "99.9", "50.0", ..., 30 histogram
  buckets log-spaced over the observed range;
- input_sequence_lengths: the aggregator's ISL series, read back from result_summary.json by
  .github/submission-cli-test/scripts/make_system_desc.py (commit
  8999334fa4b4acbf605fe01f0ab7376fa2622bd4).

A sample is one assistant turn: issued = attempted, completed = generated, failed = dropped.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np

PERCENTILES = (99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0, 25.0, 10.0, 5.0, 1.0)
HISTOGRAM_BUCKETS = 30


def _log_edges(low: float, high: float, n: int) -> list[float]:
    safe_low = max(float(low), 1.0)
    safe_high = max(float(high), safe_low * 10.0)
    step = (math.log(safe_high) - math.log(safe_low)) / n
    return [math.exp(math.log(safe_low) + i * step) for i in range(n + 1)]


def series_block(values: Sequence[int | float]) -> dict[str, Any]:
    """One series as the endpoints report writes it; {} without values, as it does."""
    if not values:
        return {}
    ordered = sorted(values)
    n = len(ordered)
    # numpy's "lower" method: the observed value at floor((n - 1) * q)
    percentiles = {str(p): float(ordered[math.floor((n - 1) * (p / 100))]) for p in PERCENTILES}
    edges = _log_edges(ordered[0], ordered[-1], HISTOGRAM_BUCKETS)
    counts, _ = np.histogram(np.clip(np.array(ordered, dtype=float), edges[0], edges[-1]),
                             bins=edges)
    total = sum(ordered)
    return {
        "total": total, "min": ordered[0], "max": ordered[-1],
        "median": percentiles["50.0"], "avg": total / n,
        "std_dev": statistics.stdev(ordered) if n > 1 else 0.0,
        "percentiles": percentiles,
        "histogram": {"buckets": [[edges[i], edges[i + 1]] for i in range(HISTOGRAM_BUCKETS)],
                      "counts": [int(c) for c in counts]},
    }


def _ns(ms: float | None) -> int | None:
    return None if ms is None else round(ms * 1e6)


def endpoints_fields(turns: Sequence[dict[str, Any]], run_status: str | None,
                     wall_ms: float | None) -> dict[str, Any]:
    """The shared metrics of replay_turns.jsonl rows under MLPerf endpoints' names."""
    done = [t for t in turns if t["status"] == "completed"]

    def ns_series(key: str) -> dict[str, Any]:
        return series_block([v for v in (_ns(t[key]) for t in done) if v is not None])

    osl = [t["decoded_tokens"] for t in done if t["decoded_tokens"] is not None]
    duration_ns = round(wall_ms * 1e6) if wall_ms else None
    duration_s = duration_ns / 1e9 if duration_ns else None
    state = "complete" if run_status == "complete" else "interrupted"
    return {
        "n_samples_issued": len(turns),
        "n_samples_completed": len(done),
        "n_samples_failed": len(turns) - len(done),
        "duration_ns": duration_ns,
        "state": state,
        "complete": state == "complete",
        "ttft": ns_series("ttft_ms"),
        "tpot": ns_series("tpot_ms"),
        "latency": ns_series("latency_ms"),
        "output_sequence_lengths": series_block(osl),
        "input_sequence_lengths": series_block(
            [t["context_tokens"] for t in done if t["context_tokens"] is not None]),
        "qps": len(done) / duration_s if duration_s else None,
        "tps": sum(osl) / duration_s if duration_s and osl else None,
    }
