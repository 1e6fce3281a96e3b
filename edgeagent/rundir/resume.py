"""Resuming an interrupted run (`edgeagent run --resume RUN_DIR`).

Policy (simple and exact): a task with a finished TaskRecord is kept as it is. A task without
one (the process was killed) or whose record says `interrupted` (Ctrl-C, SIGTERM) is run again
from scratch as attempt N+1 in a fresh workspace; the steps its unfinished attempt committed
stay in run.db untouched and are listed in the `superseded` table (and as an
`attempt_superseded` line in its trajectory), so no committed step is lost and none is counted
twice. A step is committed when its run.db row is; a trajectory line cut short by the kill is
dropped when the run is resumed.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..config import RunConfig, load_config
from ..errors import StoreError
from ..events import TaskRecord
from .files import CONFIG_FILE
from .store import open_run_db

_TASK_FIELDS = {f.name for f in dataclasses.fields(TaskRecord)}


@dataclass(frozen=True)
class ResumePlan:
    run_dir: Path
    task_ids: tuple[str, ...]
    done: dict[str, TaskRecord]  # kept as recorded
    next_attempt: dict[str, int]  # task -> attempt number of its next try
    superseded: tuple[tuple[str, int, int], ...]  # (task, attempt, committed steps)


def resume_config(run_dir: Path, overrides: dict, *, replay: bool = False) -> RunConfig:
    """The interrupted run's own config; only settings that do not change results may differ.
    `replay`: the run directory is a replay's (its config.yaml has a `replay:` section, read
    by the caller); without it such a directory is refused with the command that resumes it."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        raise StoreError(
            f"no config.yaml in {run_dir} (give a run directory made by `edgeagent run`)"
        )
    allowed = {"threads", "power_root", "sample_interval_s"}
    changed = sorted(k for k, v in overrides.items() if v is not None and k not in allowed)
    if changed:
        raise StoreError(
            f"--resume continues {run_dir} with its own config.yaml; drop --"
            f"{changed[0].replace('_', '-')} (only --threads, --power-root and"
            " --sample-interval-s may be given)"
        )
    given = {k: v for k, v in overrides.items() if k in allowed}
    is_replay = "replay" in _recorded(path)
    if is_replay and not replay:
        raise StoreError(f"{run_dir} is a replay's run directory: continue it with "
                         f"`edgeagent replay --resume {run_dir}`")
    if replay and not is_replay:
        raise StoreError(f"{run_dir} is not a replay's run directory (no `replay:` in its "
                         f"config.yaml): continue it with `edgeagent run --resume {run_dir}`")
    if is_replay:  # the section is the replay's record, not a setting
        data = {k: v for k, v in _recorded(path).items() if k != "replay"}
        config = load_config(None, {**data, **given})
    else:
        config = load_config(path, given)
    plan_resume(run_dir)  # a run directory that cannot be resumed fails before the model loads
    return dataclasses.replace(config, out=str(Path(run_dir).parent))


def _recorded(config_yaml: Path) -> dict:
    try:
        data = yaml.safe_load(config_yaml.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise StoreError(f"cannot read {config_yaml}: {exc} (is it a run directory?)") from exc
    if not isinstance(data, dict):
        raise StoreError(f"{config_yaml} is not a run's config (a mapping of settings)")
    return data


def plan_resume(run_dir: Path) -> ResumePlan:
    run_dir = Path(run_dir)
    db = open_run_db(run_dir)
    try:
        run = db.execute("SELECT task_ids_json, status FROM runs").fetchone()
        if run is None:
            raise StoreError(f"{run_dir}/run.db has no run yet (start it again without --resume)")
        task_ids = tuple(json.loads(run["task_ids_json"]))
        done: dict[str, TaskRecord] = {}
        last_attempt: dict[str, int] = {}
        interrupted: list[tuple[str, int]] = []
        # SELECT *: a run from before a task column has none (the record's default then)
        for row in db.execute("SELECT * FROM tasks"):
            record = TaskRecord(**{k: row[k] for k in row.keys() if k in _TASK_FIELDS})
            last_attempt[record.task_id] = max(last_attempt.get(record.task_id, -1),
                                               record.attempt)
            if record.termination != "interrupted":
                done[record.task_id] = record
            else:
                interrupted.append((record.task_id, record.attempt))
        counts = db.execute(
            "SELECT task_id, attempt, count(*) FROM steps GROUP BY task_id, attempt"
        ).fetchall()
        try:
            already = {(r[0], r[1])
                       for r in db.execute("SELECT task_id, attempt FROM superseded")}
        except sqlite3.OperationalError:
            already = set()  # a run.db from before resume existed: no table yet
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read {run_dir}/run.db: {exc} (is it a run directory?)") from exc
    finally:
        db.close()
    steps_of = {(t, a): n for t, a, n in counts}
    for task_id, attempt in steps_of:
        last_attempt[task_id] = max(last_attempt.get(task_id, -1), attempt)
    # every unfinished attempt: with committed steps, or recorded `interrupted` with none
    superseded = [
        (t, a, steps_of.get((t, a), 0))
        for t, a in sorted(set(steps_of) | set(interrupted))
        if t not in done and (t, a) not in already
    ]
    for task_id, record in done.items():
        last_attempt[task_id] = record.attempt  # kept: its own attempt
    return ResumePlan(
        run_dir=run_dir,
        task_ids=task_ids,
        done=done,
        next_attempt={t: last_attempt.get(t, -1) + 1 for t in task_ids},
        superseded=tuple(superseded),
    )
