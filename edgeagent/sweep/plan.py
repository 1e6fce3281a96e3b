"""What a sweep is asked to do, kept in sweep.json so that `--resume` does exactly that: the
workload (a replay dataset and its sha256, or a live suite), the lists, the repeats and the
settings every run shares; and the index of a new sweep made from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import load_config
from ..errors import UserError
from .execute import Workload
from .grid import SETTINGS, Configuration, expand
from .sweep_index import SweepIndex


@dataclass(frozen=True)
class SweepPlan:
    workload: Workload
    lists: dict[str, list[Any]]
    base: dict[str, Any]  # config keys every run shares (model, n_ctx, seed, ...)
    repeats: int
    configurations: tuple[Configuration, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"workload": {"kind": self.workload.kind, "args": list(self.workload.args),
                             "units": self.workload.units, **self.workload.describe},
                "grid": self.lists, "order": list(SETTINGS), "repeats": self.repeats,
                "base": self.base}


def replay_workload(dataset: Path | None, conversations: str | None,
                    inject_tool_delay: bool = False, mlperf: bool = False) -> Workload:
    """`mlperf`: every run replays with MLPerf Edge Agentic's run settings (`replay
    --mlperf`), so a sweep over MLPerf's turns measures what its performance phase runs."""
    from ..models import file_sha256
    from ..replay import load_dataset, select_conversations
    from ..run import default_dataset

    path = Path(dataset) if dataset is not None else default_dataset()
    chosen = select_conversations(load_dataset(path), conversations)
    args = [str(path.resolve())]
    if conversations:
        args += ["--conversations", conversations]
    if inject_tool_delay:
        args.append("--inject-tool-delay")
    if mlperf:
        args.append("--mlperf")
    return Workload("replay", tuple(args), sum(c.assistant_turns for c in chosen),
                    {"dataset": str(path.resolve()), "dataset_sha256": file_sha256(path),
                     "conversations": conversations, "mlperf": mlperf,
                     "conversation_ids": [c.id for c in chosen]})


def suite_workload(suite: str, tasks: list[str] | None) -> Workload:
    from ..suite import load_suite

    loaded = load_suite(suite)
    chosen = [t.id for t in loaded.tasks if not tasks or t.id in tasks]
    missing = sorted(set(tasks or ()) - set(chosen))
    if missing:
        raise UserError(f"--task: {', '.join(missing)} not in suite {suite} (see `edgeagent "
                        f"tasks list {suite}`)")
    args = ["--suite", suite] + [x for t in (tasks or ()) for x in ("--task", t)]
    return Workload("suite", tuple(args), len(chosen), {"suite": suite, "tasks": chosen})


def new_plan(workload: Workload, lists: dict[str, list[Any]], base: dict[str, Any],
             repeats: int) -> SweepPlan:
    """Check the shared settings (a bad one ends the sweep before it starts) and expand the
    grid (a configuration llama.cpp would refuse is kept as skipped)."""
    if repeats < 1:
        raise UserError(f"--repeats must be at least 1, got {repeats}")
    load_config(None, base)
    configs = tuple(expand(lists, base))
    if configs and all(c.skipped for c in configs):
        raise UserError(f"every configuration would be refused: {configs[0].skipped}")
    return SweepPlan(workload, lists, base, repeats, configs)


def start_index(sweep_dir: Path, plan: SweepPlan) -> SweepIndex:
    index = SweepIndex(sweep_dir, plan.to_dict(), [
        {"id": c.id, "label": c.label(), "settings": c.as_dict(), "skipped": c.skipped,
         "runs": []} for c in plan.configurations])
    index.save()
    return index


def plan_of_index(index: SweepIndex) -> SweepPlan:
    """The plan a sweep directory was made with, its grid expanded again: `--resume` runs
    exactly what was asked (the same ids for the same settings)."""
    p = index.plan
    work = p.get("workload") or {}
    describe = {k: v for k, v in work.items() if k not in ("kind", "args", "units")}
    workload = Workload(work.get("kind", "replay"), tuple(work.get("args") or ()),
                        int(work.get("units") or 0), describe)
    lists = {k: list(v) for k, v in (p.get("grid") or {}).items()}
    base = dict(p.get("base") or {})
    configs = tuple(expand(lists, base))
    recorded = [(c["id"], c.get("settings")) for c in index.configurations]
    if recorded != [(c.id, c.as_dict()) for c in configs]:
        raise UserError(f"{index.path}/sweep.json: its configurations do not match its own "
                        "grid (edited by hand?); start a new sweep")
    for c in configs:  # a configuration refused at run time stays skipped
        if c.skipped:
            index.configuration(c.id)["skipped"] = c.skipped
    return SweepPlan(workload, lists, base, int(p.get("repeats") or 1), configs)
