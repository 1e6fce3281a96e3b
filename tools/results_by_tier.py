"""Per-task and per-tier tables of runs, in Markdown, for docs/results.md.

    python tools/results_by_tier.py RUN_DIR [--suite core]          # one run: both tables
    python tools/results_by_tier.py RUN_A RUN_B ... [--label A ...]  # runs side by side
    python tools/results_by_tier.py RUN_A+RUN_A2 RUN_B                # A's tasks in two runs

Every number comes from the run directories (`edgeagent report --format json`: its task rows
and its tier rows, which keep the guided tier apart from the graded ones, by the tiers the
run recorded); the task table's tier column is the suite's task.yaml. Nothing is typed by
hand. `A+B` pools run directories that together hold one configuration's tasks (a task
subset run afterwards): their tasks and steps, and the tiers each recorded.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgeagent.errors import UserError  # noqa: E402
from edgeagent.results.formats import all_metrics, md_table, to_json  # noqa: E402
from edgeagent.results.metrics import RunData, load_run, merge_runs  # noqa: E402
from edgeagent.results.tiers import TIER_HEADER, tier_table  # noqa: E402
from edgeagent.results.validity import check_data  # noqa: E402
from edgeagent.rundir import Provenance  # noqa: E402
from edgeagent.suite import load_suite  # noqa: E402


def load(arg: str) -> RunData:
    """One run directory, or several joined by `+` pooled into one (tiers merged)."""
    dirs = [Path(d) for d in arg.split("+")]
    try:
        runs = [load_run(d) for d in dirs]
    except UserError as exc:
        sys.exit(f"{arg}: {exc}")
    if len(runs) == 1:
        return runs[0]
    tiers: dict = {}
    for r in runs:
        tiers.update(r.provenance.task_tiers or {})
    pooled = merge_runs(arg, runs)
    return dataclasses.replace(pooled, provenance=Provenance.from_dict(
        {**pooled.provenance.to_dict(), "task_tiers": tiers}))


def report_json(data: RunData) -> dict:
    """The same rows `edgeagent report --format json` prints."""
    return json.loads(json.dumps(to_json(data, all_metrics(data, None), check_data(data),
                                         None), default=str))


def _ctx(x: float | None) -> str:
    return f"{x:,.0f}" if x is not None else "-"


def task_table(data: dict, suite_arg: str | None) -> list[str]:
    suite = load_suite(suite_arg or data["suite"])
    tiers = {t.id: t.tier or "untiered" for t in suite.tasks}
    lines = ["| task | tier | outcome | termination | steps | wall s | final context |",
             "| --- | --- | --- | --- | ---: | ---: | ---: |"]
    for r in data["tasks"]:
        lines.append(f"| {r['task_id']} | {tiers.get(r['task_id'], '?')} | {r['outcome']} | "
                     f"{r['termination']} | {r['steps']} | {r['wall_s']:.1f} | "
                     f"{r['context_tokens_final']:,} |")
    return lines


def side_by_side(runs: list[tuple[str, dict]]) -> list[str]:
    """One row per tier, per run: resolved, format errors, steps, wall s, final context max."""
    order: list[str] = []
    for _, data in runs:
        order += [r["tier"] for r in data["tiers"] if r["tier"] not in order]
    head = "| tier | " + " | ".join(
        " | ".join(f"{label} {col}" for col in ("resolved", "format errors", "steps", "wall s",
                                                 "ctx max")) for label, _ in runs)
    lines = [head + " |", "| --- |" + " ---: | ---: | ---: | ---: | ---: |" * len(runs)]
    for tier in order:
        cells = []
        for _, data in runs:
            row = next((r for r in data["tiers"] if r["tier"] == tier), None)
            cells.append("- | - | - | - | -" if row is None else
                         f"{row['resolved']}/{row['tasks']} | {row['format_errors']} | "
                         f"{row['steps']} | {row['wall_s']:.0f} | {_ctx(row['context_max'])}")
        lines.append(f"| {tier} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dirs", nargs="+", help="run directory, or RUN+RUN pooled")
    parser.add_argument("--suite", default=None, help="suite name or path (default: the run's)")
    parser.add_argument("--label", action="append", default=[],
                        help="a column label per run, in order (default: the run directory)")
    args = parser.parse_args(argv)
    if args.label and len(args.label) != len(args.run_dirs):
        parser.error(f"--label given {len(args.label)} times for {len(args.run_dirs)} runs: "
                     "give one per run or none")
    loaded = [load(d) for d in args.run_dirs]
    labels = args.label or [Path(d).name for d in args.run_dirs]
    runs = [(label, report_json(d)) for label, d in zip(labels, loaded, strict=True)]
    if any(not data["tiers"] for _, data in runs):
        bare = [label for label, data in runs if not data["tiers"]]
        print(f"note: no task tiers recorded in {', '.join(bare)} (a run made before tiers, "
              "or a replay): no tier rows for it", file=sys.stderr)
    if len(runs) == 1:
        print("\n".join(task_table(runs[0][1], args.suite)))
        print()
        # the tier table `edgeagent report --format md` prints
        print("\n".join(md_table(TIER_HEADER, tier_table(loaded[0]))))
    else:
        print("\n".join(side_by_side(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
