"""Agents side by side on one suite and model, in Markdown, for docs/results.md.

    python tools/agents_table.py "edgeagent=RUN" "single-shot=RUN" "mini-swe-agent=RUN[+RUN]"

Each argument is LABEL=RUN, or LABEL=RUN+RUN for one configuration's tasks spread over runs
(a resumed or split run); a task in several of them counts from the last (a subset of tasks
run again after a change that only they take a new path through). Two tables: resolved per
tier (graded tiers with a Wilson 95% interval, the guided tier apart, skipped tasks
counted), and the cost: requests (steps), prefilled and decoded tokens and wall time per
task, and per resolved graded task (the whole run's cost divided by what it resolved; n/a
when it resolved none), and energy per resolved task where the run measured or estimated
energy (null otherwise, with the reason).
Tasks a stop cut short (`interrupted`) are left out, and said so on stderr. `--common` cuts
every run to the tasks all of them finished, so a partial run (an agent stopped part way, or
run on one host for some tasks) compares with a whole one on the same tasks, costs included.
Every number comes from the run directories' task and step rows and recorded tiers.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgeagent.errors import UserError  # noqa: E402
from edgeagent.results.formats import md_table  # noqa: E402
from edgeagent.results.interval import wilson_interval  # noqa: E402
from edgeagent.results.metrics import RunData, load_run, merge_runs  # noqa: E402
from edgeagent.results.tiers import tasks_by_tier  # noqa: E402
from edgeagent.suite.schema import GRADED_TIERS, GUIDED_TIER  # noqa: E402


def _resolved(tasks: Sequence[dict[str, Any]]) -> int:
    return sum(t["outcome"] == "resolved" for t in tasks)


def _cell(tasks: Sequence[dict[str, Any]]) -> str:
    return f"{_resolved(tasks)}/{len(tasks)}" if tasks else "-"


def _graded(groups: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [t for tier in GRADED_TIERS for t in groups.get(tier, [])]


def tier_row(label: str, data: RunData) -> list[str]:
    groups = tasks_by_tier(data)
    graded = _graded(groups)
    k, n = _resolved(graded), len(graded)
    low, high = wilson_interval(k, n) if n else (0.0, 0.0)
    skipped = sum(t["termination"] == "skipped" for t in data.tasks)
    return [label, *(_cell(groups.get(tier, [])) for tier in GRADED_TIERS),
            f"{k}/{n} ({low:.2f}-{high:.2f})", _cell(groups.get(GUIDED_TIER, [])),
            str(skipped)]


def _per(total: float | None, count: int, digits: int = 0) -> str:
    if total is None:
        return "n/a"
    if count == 0:
        return "n/a (none)"
    return f"{total / count:,.{digits}f}"


def cost_row(label: str, data: RunData) -> list[str]:
    tasks = data.tasks
    resolved = _resolved(_graded(tasks_by_tier(data)))
    prefilled = sum(s["prefill_tokens"] or 0 for s in data.steps)
    decoded = sum(s["decoded_tokens"] or 0 for s in data.steps)
    wall_s = sum(t["wall_ms"] or 0 for t in tasks) / 1000
    energies = [t["energy_j"] for t in tasks]
    energy = None if not tasks or any(e is None for e in energies) else sum(energies)
    why = next((t["energy_null_reason"] for t in tasks if t["energy_j"] is None), None)
    n = len(tasks)
    return [label, str(n), _per(len(data.steps), n, 1), _per(prefilled, n),
            _per(decoded, n), _per(wall_s, n, 1), _per(prefilled, resolved),
            _per(wall_s, resolved, 1),
            _per(energy, resolved, 1) if energy is not None else f"null ({why})"]


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    print("\n".join(md_table(header, rows)))


def load(spec: str) -> tuple[str, RunData]:
    """The run(s) of one agent, less tasks a stop cut short (`interrupted`: not an outcome;
    `--resume` runs them again), with a note of how many were left out."""
    label, sep, runs = spec.partition("=")
    if not sep or not runs:
        raise UserError(f"{spec}: expected LABEL=RUN or LABEL=RUN+RUN")
    loaded = [load_run(Path(p)) for p in runs.split("+")]
    # a task in several runs counts from the last (a subset run again after a change)
    loaded = [_without(run, {t["task_id"] for later in loaded[i + 1:] for t in later.tasks})
              for i, run in enumerate(loaded)]
    data = loaded[0] if len(loaded) == 1 else merge_runs(label, loaded)
    cut = {(t["task_id"], t["attempt"]) for t in data.tasks if t["termination"] == "interrupted"}
    if not cut:
        return label, data
    print(f"{label}: {len(cut)} interrupted task(s) left out: "
          + ", ".join(sorted(t for t, _ in cut)), file=sys.stderr)
    return label, dataclasses.replace(
        data, tasks=tuple(t for t in data.tasks if (t["task_id"], t["attempt"]) not in cut),
        steps=tuple(s for s in data.steps if (s["task_id"], s["attempt"]) not in cut))


def _without(data: RunData, task_ids: set[str]) -> RunData:
    if not task_ids:
        return data
    return dataclasses.replace(
        data, tasks=tuple(t for t in data.tasks if t["task_id"] not in task_ids),
        steps=tuple(s for s in data.steps if s["task_id"] not in task_ids))


def common_tasks(loaded: list[tuple[str, RunData]]) -> list[tuple[str, RunData]]:
    """Each run cut to the tasks every run finished, with a note of what was left out."""
    ids = [{t["task_id"] for t in data.tasks} for _, data in loaded]
    shared = set.intersection(*ids)
    left_out = set.union(*ids) - shared
    print(f"--common: {len(shared)} task(s) in every run; {len(left_out)} left out"
          + (": " + ", ".join(sorted(left_out)) if left_out else ""), file=sys.stderr)
    return [(label, _without(data, left_out)) for label, data in loaded]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="LABEL=RUN[+RUN]")
    ap.add_argument("--common", action="store_true",
                    help="compare every run on the tasks all of them finished")
    args = ap.parse_args(argv)
    try:
        loaded = [load(spec) for spec in args.runs]
    except UserError as exc:
        print(f"agents_table: {exc}", file=sys.stderr)
        return 2
    if args.common:
        loaded = common_tasks(loaded)
    print_table(["agent", *GRADED_TIERS, "graded (Wilson 95%)", GUIDED_TIER, "skipped"],
                [tier_row(label, data) for label, data in loaded])
    print()
    print_table(["agent", "tasks", "requests/task", "prefilled tok/task", "decoded tok/task",
                 "wall s/task", "prefilled tok/resolved graded", "wall s/resolved graded",
                 "energy J/resolved graded"],
                [cost_row(label, data) for label, data in loaded])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
