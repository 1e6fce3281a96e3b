"""run.db read back as plain rows: the one reader every report, summary, export and browser
goes through, so the store's tables and the rule for a resumed run's superseded attempts
(kept in run.db, counted nowhere) are known here alone."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .files import DB_FILE
from .store import kept_attempts, open_run_db

Row = dict[str, Any]


@dataclass(frozen=True)
class StoredRun:
    """A run directory's tables; tasks and steps only of the attempts that count."""

    runs: tuple[Row, ...]  # the run's row; none when it failed before its first task
    tasks: tuple[Row, ...]  # in the order they were stored
    steps: tuple[Row, ...]  # by start time
    samples: tuple[Row, ...] = ()  # t_ns, cpu_percent, rss_bytes, temp_c, cpu_mhz
    readings: tuple[Row, ...] = ()  # t_ns, source, value: each power source per sample
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)  # runs/tasks/steps
    # the units' judgements of steps (task_id, attempt, step, scored_json), in store order
    scored: tuple[Row, ...] = ()

    @property
    def run(self) -> Row | None:
        return self.runs[0] if self.runs else None


def _rows(db: sqlite3.Connection, sql: str) -> tuple[Row, ...]:
    try:
        return tuple(dict(r) for r in db.execute(sql).fetchall())
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # a run written before the meter tables existed
            return ()
        raise


def _columns(db: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(r[1] for r in db.execute(f"PRAGMA table_info({table})").fetchall())


def read_run(run_dir: Path | str, *, samples: bool = True) -> StoredRun:
    """Every table of `run_dir`'s store; `samples=False` leaves the sampler's rows out (a
    listing that needs only the counts). A store that cannot be read is a StoreError naming
    run.db and the fix."""
    run_dir = Path(run_dir)
    db = open_run_db(run_dir)
    try:
        kept = kept_attempts(db)
        return StoredRun(
            runs=_rows(db, "SELECT * FROM runs"),
            tasks=_rows(db, f"SELECT * FROM tasks WHERE {kept} ORDER BY rowid"),
            # wall clock first: monotonic clocks restart in a run resumed after a reboot
            steps=_rows(db, f"SELECT * FROM steps WHERE {kept} "
                            "ORDER BY wall_start, t_start_ns"),
            samples=_rows(db, "SELECT * FROM samples ORDER BY t_ns") if samples else (),
            readings=(_rows(db, "SELECT * FROM sample_readings ORDER BY t_ns")
                      if samples else ()),
            columns={t: _columns(db, t) for t in ("runs", "tasks", "steps")},
            scored=_rows(db, f"SELECT * FROM scored WHERE {kept} ORDER BY rowid"),
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read {run_dir / DB_FILE}: {exc} (is it a run directory?)"
                         ) from exc
    finally:
        db.close()
