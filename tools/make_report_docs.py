"""Write docs/smoke-report.html and docs/smoke-report.png from a run directory.

    python tools/make_report_docs.py RUN_DIR [--bandwidth-gbs X]

The PNG holds every plot of the HTML report plus the headline metrics and the verdict, for
the README.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from edgeagent.results.formats import fmt_metric, render
from edgeagent.results.metrics import load_run, metrics_by_key, roofline_metrics, run_metrics
from edgeagent.results.plots import save_png
from edgeagent.results.validity import check_data

DOCS = Path(__file__).resolve().parents[1] / "docs"
KEYS = ("tasks_resolved", "tasks_per_hour", "trajectory_mean_s", "trajectory_p50",
        "ttft_p50", "tpot_p50", "energy_per_task_j", "average_power_w", "tokens_per_joule",
        "time_share_prefill", "time_share_decode", "decode_achieved_gbs",
        "decode_roofline_efficiency")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--bandwidth-gbs", type=float)
    args = ap.parse_args()
    (DOCS / "smoke-report.html").write_text(render(args.run_dir, "html", args.bandwidth_gbs))
    data = load_run(args.run_dir)
    by = metrics_by_key(run_metrics(data) + roofline_metrics(data, args.bandwidth_gbs))
    verdict = check_data(data)
    lines = [f"{by[k].label}: {fmt_metric(by[k])}"[:70] for k in KEYS]
    lines += ["", f"Result is: {'VALID' if verdict.valid else 'INVALID'}"]
    lines += [line for r in verdict.reasons for line in textwrap.wrap(f"- {r}", 66)]
    save_png(data, DOCS / "smoke-report.png", dpi=70, summary="\n".join(lines))


if __name__ == "__main__":
    main()
