"""Stored runs as event streams: the browser folds a run directory into the same state the
live dashboard builds, so a past run looks exactly as it did while running.

Steps and task records come from the trajectory files (they hold everything, observation and
per-token times included); the run itself and the power samples from run.db.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..events import (
    Event,
    PhaseEnergy,
    PhaseLoad,
    RunFinished,
    RunStarted,
    SampleBatch,
    StepRecord,
    TaskRecord,
    TaskStarted,
)
from ..rundir import (
    DB_FILE,
    REPEATS_FILE,
    Provenance,
    StoredRun,
    is_run_dir,
    read_run,
    trajectory_path,
)
from ..sweep import is_sweep_dir, load_index

_STEP_FIELDS = {f.name: f for f in dataclasses.fields(StepRecord)}
_TASK_FIELDS = {f.name for f in dataclasses.fields(TaskRecord)}
_STARTED_FIELDS = {f.name for f in dataclasses.fields(TaskStarted)}


def step_from_dict(d: dict[str, Any]) -> StepRecord:
    kw: dict[str, Any] = {}
    for name, value in d.items():
        if name not in _STEP_FIELDS:
            continue  # a field a later version added: not ours to show
        if name.startswith("energy_") and isinstance(value, dict):
            value = PhaseEnergy(**value)
        elif name.startswith("load_") and isinstance(value, dict):
            value = PhaseLoad(**value)
        elif name == "per_token_ms":
            value = tuple(value or ())
        kw[name] = value
    return StepRecord(**kw)


def _read_trajectory(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break  # a line cut by a crash ends the readable part
    return records


def _samples(stored: StoredRun) -> SampleBatch | None:
    readings: dict[int, list[tuple[str, float | None]]] = defaultdict(list)
    for row in stored.readings:
        readings[row["t_ns"]].append((row["source"], row["value"]))
    if not stored.samples:
        return None
    return SampleBatch(tuple((r["t_ns"], r["cpu_percent"], r["rss_bytes"], r["temp_c"],
                              r["cpu_mhz"], tuple(readings.get(r["t_ns"], ())))
                             for r in stored.samples))


def run_events(run_dir: Path) -> list[Event]:
    """The events of a stored run, in the order the run emitted them (samples first)."""
    run_dir = Path(run_dir)
    stored = read_run(run_dir)
    run = stored.run
    if run is None:
        raise StoreError(f"{run_dir / DB_FILE} holds no run (it failed before its first "
                         "task); choose another run directory")
    batch = _samples(stored)
    task_ids = json.loads(run["task_ids_json"] or "[]")
    provenance = json.loads(run["provenance_json"] or "{}")
    events: list[Event] = [RunStarted(run["run_id"], str(run_dir), run["suite"],
                                      tuple(task_ids), provenance)]
    if batch is not None:
        events.append(batch)
    records: list[TaskRecord] = []
    for task_id in task_ids:
        path = trajectory_path(run_dir, task_id)
        if not path.is_file():
            continue  # never started
        for rec in _read_trajectory(path):
            kind = rec.get("type")
            if kind == "task_started":
                events.append(TaskStarted(**{k: v for k, v in rec.items()
                                             if k in _STARTED_FIELDS}))
            elif kind == "step":
                events.append(step_from_dict(rec))
            elif kind == "task_finished":
                record = TaskRecord(**{k: v for k, v in rec.items() if k in _TASK_FIELDS})
                records.append(record)
                events.append(record)
    if run["finished_wall"] is not None:
        events.append(RunFinished(run["run_id"], run["status"], tuple(records),
                                  run["wall_ms"] or 0.0, run["energy_j"],
                                  run["energy_null_reason"], run["sample_hz"]))
    return events


@dataclass(frozen=True)
class RunSummary:
    path: Path
    run_id: str
    suite: str
    model: str
    status: str
    tasks: int
    resolved: int
    steps: int
    wall_ms: float | None
    energy_j: float | None
    sweep: str = ""  # for a run of a sweep: the sweep, configuration and repeat
    sweep_dir: Path | None = None


def summarize(run_dir: Path) -> RunSummary:
    stored = read_run(run_dir, samples=False)
    run, tasks, steps = stored.run, stored.tasks, len(stored.steps)
    if run is None:
        raise StoreError(f"{run_dir / DB_FILE} holds no run")
    model = Provenance.from_dict(json.loads(run["provenance_json"] or "{}")).model
    return RunSummary(
        Path(run_dir), run["run_id"], run["suite"] or "-", model.get("name") or "-",
        run["status"], len(json.loads(run["task_ids_json"] or "[]")),
        sum(1 for t in tasks if t["outcome"] == "resolved"), steps, run["wall_ms"],
        run["energy_j"],
    )


def find_runs(root: Path) -> list[RunSummary]:
    """The readable runs directly under `root`, newest first, those of each sweep directory
    there (in its grid order) and of each `--repeats` group; `root` may be a sweep
    directory itself. Unreadable runs are skipped."""
    if is_sweep_dir(root):
        return sweep_runs(root)
    out = []
    for path in sorted(root.iterdir(), reverse=True):
        if is_sweep_dir(path):
            out += sweep_runs(path)
        elif is_run_dir(path):
            with contextlib.suppress(StoreError):
                out.append(summarize(path))
        elif (path / REPEATS_FILE).is_file():  # a --repeats group: its runs, newest first
            out += find_runs(path)
    return out


def sweep_runs(sweep_dir: Path) -> list[RunSummary]:
    """A sweep's runs, each labelled with its configuration and repeat."""
    try:
        index = load_index(sweep_dir)
    except StoreError:
        return []
    out = []
    for conf, run, path in index.run_dirs():
        if not is_run_dir(path):
            continue
        with contextlib.suppress(StoreError):
            out.append(dataclasses.replace(
                summarize(path), sweep_dir=Path(sweep_dir),
                sweep=f"{Path(sweep_dir).name} {conf['id']} {conf.get('label', '')} "
                      f"r{run['repeat']}"))
    return out
