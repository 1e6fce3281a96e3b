"""The run directory: run.db (SQLite, WAL, one commit per step), config.yaml, trajectories/.

The store is an event sink. Each step is committed as it completes and each trajectory line
is flushed as it is written, so a crash or Ctrl-C loses at most the step in progress.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from ..errors import StoreError
from ..events import (
    Event,
    PhaseEnergy,
    PhaseLoad,
    RunFinished,
    RunStarted,
    SampleBatch,
    Scored,
    StepAnswered,
    StepRecord,
    TaskRecord,
    TaskStarted,
)
from .files import CONFIG_FILE, DB_FILE, PROVENANCE_FILE, TRAJECTORIES_DIR, trajectory_path

SCHEMA_VERSION = 1

# a PhaseLoad's columns, after its field's name (load_decode_other_s, ...), then _null_reason
LOAD_PARTS = ("other_s", "steal_s", "cpus_s")
# StepRecord fields that are not columns of `steps`: the trajectory file's only (large or
# per-token), and the unit's judgement, which has its own table (`scored`)
_TRAJECTORY_ONLY = {"observation", "per_token_ms", "prompt", "scored"}


def _step_columns() -> list[tuple[str, str]]:
    cols: list[tuple[str, str]] = []
    hints = {f.name: f.type for f in dataclasses.fields(StepRecord)}
    for name, hint in hints.items():
        if name in _TRAJECTORY_ONLY:
            continue
        hint = str(hint)
        if hint == "PhaseEnergy":
            cols += [
                (f"{name}_j", "REAL"),
                (f"{name}_source", "TEXT"),
                (f"{name}_scope", "TEXT"),
                (f"{name}_null_reason", "TEXT"),
            ]
        elif hint == "PhaseLoad":
            cols += [(f"{name}_{part}", "REAL") for part in LOAD_PARTS]
            cols.append((f"{name}_null_reason", "TEXT"))
        elif name == "action_args":
            cols.append(("action_args_json", "TEXT"))
        elif "float" in hint:
            cols.append((name, "REAL"))
        elif "int" in hint or "bool" in hint:
            cols.append((name, "INTEGER"))
        else:
            cols.append((name, "TEXT"))
    return cols


STEP_COLUMNS = _step_columns()
# columns of `runs` added after the first release: resumed old run directories get them
RUN_COLUMNS_ADDED = (("failure_reason", "TEXT"), ("peak_rss_bytes", "INTEGER"),
                     ("peak_rss_scope", "TEXT"), ("kv_cache_bytes_max", "INTEGER"))
TASK_COLUMNS = [f.name for f in dataclasses.fields(TaskRecord)]


def _step_row(step: StepRecord) -> list[Any]:
    row: list[Any] = []
    for f in dataclasses.fields(step):
        if f.name in _TRAJECTORY_ONLY:
            continue
        value = getattr(step, f.name)
        if isinstance(value, PhaseEnergy):
            row += [value.joules, value.source, value.scope, value.null_reason]
        elif isinstance(value, PhaseLoad):
            row += [value.other_s, value.steal_s, value.cpus_s, value.null_reason]
        elif f.name == "action_args":
            row.append(json.dumps(value) if value is not None else None)
        else:
            row.append(value)
    return row


def _schema_sql() -> str:
    step_cols = ", ".join(f"{n} {t}" for n, t in STEP_COLUMNS)
    task_cols = ", ".join(TASK_COLUMNS)
    return f"""
    CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY, suite TEXT, status TEXT NOT NULL,
        started_wall REAL, finished_wall REAL, wall_ms REAL,
        task_ids_json TEXT, provenance_json TEXT,
        energy_j REAL, energy_null_reason TEXT, sample_hz REAL, failure_reason TEXT,
        peak_rss_bytes INTEGER, peak_rss_scope TEXT, kv_cache_bytes_max INTEGER
    );
    CREATE TABLE IF NOT EXISTS samples (
        t_ns INTEGER PRIMARY KEY, cpu_percent REAL, rss_bytes INTEGER, temp_c REAL,
        cpu_mhz REAL, gpu_mhz REAL
    );
    CREATE TABLE IF NOT EXISTS sample_readings (
        t_ns INTEGER NOT NULL, source TEXT NOT NULL, value REAL,
        PRIMARY KEY (t_ns, source)
    );
    CREATE TABLE IF NOT EXISTS steps ({step_cols}, PRIMARY KEY (task_id, attempt, step));
    CREATE TABLE IF NOT EXISTS tasks ({task_cols}, PRIMARY KEY (task_id, attempt));
    CREATE TABLE IF NOT EXISTS superseded (task_id TEXT, attempt INTEGER, steps INTEGER,
        reason TEXT, superseded_wall REAL, PRIMARY KEY (task_id, attempt));
    CREATE TABLE IF NOT EXISTS resumes (resumed_wall REAL, kept_tasks_json TEXT,
        provenance_json TEXT);
    CREATE TABLE IF NOT EXISTS scored (task_id TEXT, attempt INTEGER, step INTEGER,
        scored_json TEXT NOT NULL, PRIMARY KEY (task_id, attempt, step));
    """


def make_run_dir(out: Path, label: str) -> Path:
    """A new, uniquely named directory under `out`; clear error when it cannot be made."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for n in range(1000):
            name = f"{stamp}-{label}" + (f"-{n}" if n else "")
            path = out / name
            try:
                path.mkdir()
                return path
            except FileExistsError:
                continue
    except OSError as exc:
        raise StoreError(
            f"cannot create a run directory in {out}: {exc.strerror or exc} "
            "(choose a writable directory with --out)"
        ) from exc
    raise StoreError(f"too many runs named {stamp}-{label} in {out} (choose another --out)")


class RunStore:
    """Writes one run directory; use as the store's event sink."""

    def __init__(self, run_dir: Path, config: dict[str, Any], resume: Any = None) -> None:
        """`resume`: a rundir.resume.ResumePlan to continue run_dir instead of starting it."""
        self.run_dir = run_dir
        self._resume = resume
        try:
            (run_dir / TRAJECTORIES_DIR).mkdir(parents=True, exist_ok=True)
            if resume is None:
                (run_dir / CONFIG_FILE).write_text(yaml.safe_dump(config, sort_keys=False))
            else:
                _drop_partial_lines(run_dir / TRAJECTORIES_DIR)
            self.db = sqlite3.connect(run_dir / DB_FILE, isolation_level=None)
            self._open_schema()
        except (OSError, sqlite3.Error) as exc:
            # a full disk on resume is one line too, not sqlite's traceback
            fix = "free space on its disk" if resume is not None else "choose a writable --out"
            raise StoreError(f"cannot write to {run_dir}: {_why(exc)} ({fix})") from exc
        self._run_id: str | None = None
        self._write_error: BaseException | None = None

    def _open_schema(self) -> None:
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_schema_sql())
        # a resumed run directory from before a column existed gets it (empty in old rows)
        self._add_missing_columns("runs", RUN_COLUMNS_ADDED)
        self._add_missing_columns("tasks", [(name, "") for name in TASK_COLUMNS])
        self._add_missing_columns("steps", STEP_COLUMNS)
        if not self.db.execute("SELECT version FROM schema_version").fetchone():
            self.db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))

    def _add_missing_columns(self, table: str, columns: Sequence[tuple[str, str]]) -> None:
        """ALTER TABLE for each (name, type) the table lacks; type "" leaves it untyped."""
        have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns:
            if name not in have:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}".rstrip())

    # -- trajectory ---------------------------------------------------------------------
    def _append(self, task_id: str, record: dict[str, Any]) -> None:
        path = trajectory_path(self.run_dir, task_id)
        try:
            with path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record, default=str) + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            # a write's OSError names no file: the error line must say which one failed
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc

    # -- events -------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        """A write that fails (disk full, directory gone) ends the run with a StoreError; what
        was committed before it stays, and the run's final status is still tried."""
        try:
            self._emit(event)
        except (OSError, sqlite3.Error) as exc:
            if isinstance(event, RunFinished) and self._write_error is not None:
                return  # the first failure is the one reported
            self._write_error = exc
            where = (self.run_dir / DB_FILE if isinstance(exc, sqlite3.Error)
                     else getattr(exc, "filename", None) or self.run_dir)
            raise StoreError(
                f"cannot write to {where}: {_why(exc)}; the steps recorded before this are "
                "kept; free space on its disk (or make it writable)"
            ) from exc

    def _emit(self, event: Event) -> None:
        if isinstance(event, StepRecord):
            self._step(event)
        elif isinstance(event, StepAnswered):
            self._step_row_only(event.step)
        elif isinstance(event, TaskStarted):
            self._append(event.task_id, {"type": "task_started", **dataclasses.asdict(event)})
        elif isinstance(event, TaskRecord):
            self._task(event)
        elif isinstance(event, RunStarted):
            self._run_started(event)
        elif isinstance(event, RunFinished):
            self._run_finished(event)
        elif isinstance(event, SampleBatch):
            self._samples(event)
        elif isinstance(event, Scored):
            self._scored_row(event)

    def _run_started(self, event: RunStarted) -> None:
        self._run_id = event.run_id
        if self._resume is not None:
            self._run_resumed(event)
            return
        with self.db:
            self.db.execute(
                "INSERT INTO runs (run_id, suite, status, started_wall, task_ids_json,"
                " provenance_json) VALUES (?, ?, 'running', ?, ?, ?)",
                (event.run_id, event.suite, time.time(), json.dumps(list(event.task_ids)),
                 json.dumps(event.provenance, default=str)),
            )
        (self.run_dir / PROVENANCE_FILE).write_text(
            json.dumps(event.provenance, indent=2, default=str)
        )

    def _run_resumed(self, event: RunStarted) -> None:
        plan = self._resume
        now = time.time()
        with self.db:
            self.db.execute("UPDATE runs SET status = 'running', finished_wall = NULL"
                            " WHERE run_id = ?", (event.run_id,))
            self.db.execute("INSERT INTO resumes VALUES (?, ?, ?)",
                            (now, json.dumps(sorted(plan.done)),
                             json.dumps(event.provenance, default=str)))
            self.db.executemany(
                "INSERT OR IGNORE INTO superseded VALUES (?, ?, ?, 'unfinished when the run"
                " stopped; restarted on resume', ?)",
                [(t, a, n, now) for t, a, n in plan.superseded],
            )
        for task_id, attempt, n in plan.superseded:
            self._append(task_id, {"type": "attempt_superseded", "task_id": task_id,
                                   "attempt": attempt, "steps": n})

    def _step(self, step: StepRecord) -> None:
        self._step_row_only(step)
        self._append(step.task_id, {"type": "step", **step.to_dict()})

    def _step_row_only(self, step: StepRecord) -> None:
        """The step's row (a served step answered but not closed yet is only this: the
        trajectory gets the step once, when it is whole)."""
        names = ", ".join(n for n, _ in STEP_COLUMNS)
        marks = ", ".join("?" for _ in STEP_COLUMNS)
        with self._transaction():  # the step and its judgement: neither without the other
            self.db.execute(f"INSERT OR REPLACE INTO steps ({names}) VALUES ({marks})",
                            _step_row(step))
            if step.scored is not None:
                self._scored_row(Scored(step.task_id, step.attempt, step.step, step.scored))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One commit for everything the block writes: the connection commits each statement
        on its own (isolation_level None) unless a transaction is begun."""
        self.db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _scored_row(self, scored: Scored) -> None:
        self.db.execute("INSERT OR REPLACE INTO scored VALUES (?, ?, ?, ?)",
                        (scored.task_id, scored.attempt, scored.step, scored.scored))

    def _task(self, task: TaskRecord) -> None:
        names = ", ".join(TASK_COLUMNS)
        marks = ", ".join("?" for _ in TASK_COLUMNS)
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO tasks ({names}) VALUES ({marks})",
                            [getattr(task, n) for n in TASK_COLUMNS])
        self._append(task.task_id, {"type": "task_finished", **task.to_dict()})

    def _samples(self, batch: SampleBatch) -> None:
        # one transaction per batch: the sampler runs at 20 Hz, a commit (an fsync) per
        # sample and reading would not keep up (the connection commits each statement
        # on its own unless a transaction is begun)
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO samples VALUES (?, ?, ?, ?, ?, ?)",
                [(*s[:5], s[6] if len(s) > 6 else None) for s in batch.samples],
            )
            self.db.executemany(
                "INSERT OR REPLACE INTO sample_readings VALUES (?, ?, ?)",
                [(s[0], name, value) for s in batch.samples for name, value in s[5]],
            )

    def _run_finished(self, event: RunFinished) -> None:
        # a resumed run spans processes: its peak is the largest of theirs, its largest KV
        # cache is over every kept step, those before the resume too, and its wall is the sum
        # of the walls its processes recorded (one killed before its end recorded none)
        old = self.db.execute("SELECT peak_rss_bytes, wall_ms FROM runs WHERE run_id = ?",
                              (event.run_id,)).fetchone()
        if self._resume is not None and old and old[1] is not None:
            event = dataclasses.replace(event, wall_ms=old[1] + event.wall_ms)
        peaks = [v for v in (old[0] if old else None, event.peak_rss_bytes) if v is not None]
        scope = event.peak_rss_scope
        if self._resume is not None and scope:
            scope += "; the largest over the processes of a resumed run"
        kv = self.db.execute(f"SELECT max(kv_cache_bytes) FROM steps WHERE "
                             f"{kept_attempts(self.db)}").fetchone()[0]
        event = dataclasses.replace(
            event, peak_rss_bytes=max(peaks) if peaks else None, peak_rss_scope=scope,
            kv_cache_bytes_max=kv if kv is not None else event.kv_cache_bytes_max)
        with self.db:
            self.db.execute(
                "UPDATE runs SET status = ?, finished_wall = ?, wall_ms = ?, energy_j = ?,"
                " energy_null_reason = ?, sample_hz = ?, failure_reason = ?,"
                " peak_rss_bytes = ?, peak_rss_scope = ?, kv_cache_bytes_max = ?"
                " WHERE run_id = ?",
                (event.status, time.time(), event.wall_ms, event.energy_j,
                 event.energy_null_reason, event.sample_hz, event.failure_reason,
                 event.peak_rss_bytes, event.peak_rss_scope, event.kv_cache_bytes_max,
                 event.run_id),
            )

    def close(self) -> None:
        self.db.close()


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def _drop_partial_lines(trajectories: Path) -> None:
    """A kill mid-write can leave a trajectory's last line cut short: drop it before resuming."""
    for path in trajectories.glob("*.jsonl"):
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            with path.open("r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)


def kept_attempts(db: sqlite3.Connection) -> str:
    """SQL condition on (task_id, attempt) leaving out the attempts a resumed run superseded
    (rundir/resume.py): every count of tasks and steps reads through it."""
    has = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'superseded'"
    ).fetchone()
    if not has:
        return "1"
    return "(task_id, attempt) NOT IN (SELECT task_id, attempt FROM superseded)"


def open_run_db(run_dir: Path) -> sqlite3.Connection:
    """Open a finished or crashed run; clear error when it is not a run directory."""
    db_path = Path(run_dir) / DB_FILE
    if not db_path.is_file():
        raise StoreError(f"no run.db in {run_dir} (give a run directory made by `edgeagent run`)")
    try:
        # read-write so that SQLite can replay a WAL left behind by a crashed run
        db = sqlite3.connect(db_path)
        db.row_factory = sqlite3.Row
        db.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.Error as exc:
        # SQLite opens a WAL database by writing its -shm file: on a full disk that fails too
        fix = ("its disk is full: free space there" if _no_space(db_path.parent)
               else "is it a run directory?")
        raise StoreError(f"cannot read {db_path}: {exc} ({fix})") from exc
    return db


def _no_space(directory: Path) -> bool:
    try:
        return os.statvfs(directory).f_bavail == 0
    except OSError:
        return False
