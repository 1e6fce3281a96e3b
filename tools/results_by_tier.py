"""Per-task and per-tier tables of one run, in Markdown, for docs/results.md.

    python tools/results_by_tier.py RUN_DIR [--suite core]

Every number comes from the run directory (`edgeagent report --format json`'s task rows) and
each task's tier from the suite's task.yaml; nothing is typed by hand.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgeagent.errors import UserError  # noqa: E402
from edgeagent.results.formats import render  # noqa: E402
from edgeagent.suite import load_suite  # noqa: E402

TIERS = ("easy", "medium", "hard")


def report_json(run_dir: Path) -> dict:
    """The same rows `edgeagent report --format json` prints."""
    try:
        return json.loads(render(run_dir, "json"))
    except UserError as exc:
        sys.exit(f"{run_dir}: {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--suite", default=None, help="suite name or path (default: the run's)")
    args = parser.parse_args(argv)
    data = report_json(args.run_dir)
    suite = load_suite(args.suite or data["suite"])
    tiers = {t.id: t.tier or "untiered" for t in suite.tasks}
    rows = data["tasks"]

    print("| task | tier | outcome | termination | steps | wall s | final context |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['task_id']} | {tiers.get(r['task_id'], '?')} | {r['outcome']} | "
              f"{r['termination']} | {r['steps']} | {r['wall_s']:.1f} | "
              f"{r['context_tokens_final']:,} |")
    print()
    print("| tier | resolved | steps (sum) | wall s (sum) | wall s per task (median) | "
          "final context (max) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    order = [t for t in TIERS if any(tiers.get(r["task_id"]) == t for r in rows)]
    order += sorted({tiers.get(r["task_id"], "?") for r in rows} - set(order))
    for tier in [*order, "all"]:
        sel = [r for r in rows if tier == "all" or tiers.get(r["task_id"], "?") == tier]
        if not sel:
            continue
        resolved = sum(1 for r in sel if r["outcome"] == "resolved")
        walls = [r["wall_s"] for r in sel]
        print(f"| {tier} | {resolved}/{len(sel)} | {sum(r['steps'] for r in sel)} | "
              f"{sum(walls):.0f} | {statistics.median(walls):.1f} | "
              f"{max(r['context_tokens_final'] for r in sel):,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
