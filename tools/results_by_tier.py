"""Per-task and per-tier tables of runs, in Markdown, for docs/results.md.

    python tools/results_by_tier.py RUN_DIR [--suite core]          # one run: both tables
    python tools/results_by_tier.py RUN_A RUN_B ... [--label A ...]  # runs side by side

Every number comes from the run directories (`edgeagent report --format json`: its task rows
and its tier rows, which keep the guided tier apart from the graded ones, by the tiers the
run recorded); the task table's tier column is the suite's task.yaml. Nothing is typed by
hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgeagent.errors import UserError  # noqa: E402
from edgeagent.results.formats import md_table, render  # noqa: E402
from edgeagent.results.metrics import load_run  # noqa: E402
from edgeagent.results.tiers import TIER_HEADER, tier_table  # noqa: E402
from edgeagent.suite import load_suite  # noqa: E402


def report_json(run_dir: Path) -> dict:
    """The same rows `edgeagent report --format json` prints."""
    try:
        return json.loads(render(run_dir, "json"))
    except UserError as exc:
        sys.exit(f"{run_dir}: {exc}")


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
    parser.add_argument("run_dirs", type=Path, nargs="+")
    parser.add_argument("--suite", default=None, help="suite name or path (default: the run's)")
    parser.add_argument("--label", action="append", default=[],
                        help="a column label per run, in order (default: the run directory)")
    args = parser.parse_args(argv)
    if args.label and len(args.label) != len(args.run_dirs):
        parser.error(f"--label given {len(args.label)} times for {len(args.run_dirs)} runs: "
                     "give one per run or none")
    runs = [(label, report_json(d)) for label, d in
            zip(args.label or [d.name for d in args.run_dirs], args.run_dirs, strict=True)]
    if any(not data["tiers"] for _, data in runs):
        bare = [label for label, data in runs if not data["tiers"]]
        print(f"note: no task tiers recorded in {', '.join(bare)} (a run made before tiers, "
              "or a replay): no tier rows for it", file=sys.stderr)
    if len(runs) == 1:
        print("\n".join(task_table(runs[0][1], args.suite)))
        print()
        # the tier table `edgeagent report --format md` prints
        print("\n".join(md_table(TIER_HEADER, tier_table(load_run(args.run_dirs[0])))))
    else:
        print("\n".join(side_by_side(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
