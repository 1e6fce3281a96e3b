"""What a step budget after the whole-file draft would have done, read off recorded runs.

    python tools/step_budget.py "LABEL=RUN[+RUN]" ... [--budgets 1,2,3,4,5,6,8,11]

For each run (as tools/agents_table.py reads it) and each budget N, every task whose loop went
on after its draft (step 0, action `draft`) is cut after the draft, its repair rounds and N
loop steps: a task that ended within that many steps keeps its outcome and wall time; one that
went further counts unresolved (its workspace at the cut was never graded) and its wall time
ends where its step N ended. With greedy decoding the steps before a cut are the steps the
budget's own run takes, so the table says what `--after-draft-steps N` would resolve and
spend on these tasks; it is computed from the recorded steps, not measured by a new run.
Graded tiers and the guided tier apart, as agents_table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from agents_table import load, print_table  # noqa: E402

from edgeagent.errors import UserError  # noqa: E402
from edgeagent.results.tiers import tasks_by_tier  # noqa: E402
from edgeagent.suite.schema import GRADED_TIERS, GUIDED_TIER  # noqa: E402

WHOLE_FILE_ACTIONS = ("draft", "repair")


def cut_task(task: dict[str, Any], steps: Sequence[dict[str, Any]],
             budget: int) -> tuple[bool, float, int]:
    """(resolved, wall s, steps) of one task had its loop been cut `budget` steps after its
    whole-file draft and repair rounds."""
    whole = 0
    while whole < len(steps) and steps[whole]["action_name"] in WHOLE_FILE_ACTIONS:
        whole += 1
    keep = whole + budget
    wall_s = (task["wall_ms"] or 0) / 1000
    if whole == 0 or len(steps) <= keep:
        return task["outcome"] == "resolved", wall_s, len(steps)
    saved_ns = _end_ns(steps[-1]) - _end_ns(steps[keep - 1])
    return False, wall_s - saved_ns / 1e9, keep


def _end_ns(step: dict[str, Any]) -> int:
    return step["t_tool_end_ns"] or step["t_decode_end_ns"] or step["t_start_ns"]


def budget_rows(label: str, tasks: Sequence[dict[str, Any]],
                steps_of: dict[tuple[str, int], list[dict[str, Any]]],
                budgets: Sequence[int | None]) -> list[list[str]]:
    rows = []
    for budget in budgets:
        resolved, wall_s, steps = 0, 0.0, 0
        for task in tasks:
            own = steps_of.get((task["task_id"], task["attempt"]), [])
            r, w, n = cut_task(task, own, budget if budget is not None else len(own))
            resolved, wall_s, steps = resolved + r, wall_s + w, steps + n
        per = f"{wall_s / resolved:,.1f}" if resolved else "n/a (none)"
        rows.append([label, "no budget" if budget is None else str(budget),
                     f"{resolved}/{len(tasks)}", str(steps), f"{wall_s:,.0f}", per])
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="LABEL=RUN[+RUN]")
    ap.add_argument("--budgets", default="1,2,3,4,5,6,8,11",
                    help="loop steps after the draft, comma-separated (default %(default)s)")
    args = ap.parse_args(argv)
    try:
        budgets: list[int | None] = [int(b) for b in args.budgets.split(",")]
        if any(b < 1 for b in budgets if b is not None):
            raise ValueError
    except ValueError:
        print(f"step_budget: --budgets {args.budgets}: give whole numbers >= 1, "
              "comma-separated", file=sys.stderr)
        return 2
    try:
        loaded = [load(spec) for spec in args.runs]
    except UserError as exc:
        print(f"step_budget: {exc}", file=sys.stderr)
        return 2
    for title, tiers in (("graded", GRADED_TIERS), ("guided", (GUIDED_TIER,))):
        rows = []
        for label, data in loaded:
            groups = tasks_by_tier(data)
            tasks = [t for tier in tiers for t in groups.get(tier, [])]
            steps_of: dict[tuple[str, int], list[dict[str, Any]]] = {}
            for s in sorted(data.steps, key=lambda s: s["step"]):
                steps_of.setdefault((s["task_id"], s["attempt"]), []).append(s)
            rows += budget_rows(label, tasks, steps_of, [*budgets, None])
        print(f"{title} tasks")
        print_table(["run", "loop steps after the draft", "resolved", "steps", "wall s",
                     "wall s/resolved"], rows)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
