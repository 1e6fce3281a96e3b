"""One smoke task (fix-add) run through the real runner, sandbox, grading and store with a
scripted engine playing the model (shared by the draft and repair tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from edgeagent.config import load_config
from edgeagent.run import execute_run
from edgeagent.rundir import open_run_db


def run_fix_add(tmp_path: Path, model: Path, engine: Any, **settings: object
                ) -> tuple[Path, dict, list[dict], list[dict]]:
    """(run directory, the task's row, its step rows, its trajectory records)."""
    config = load_config(None, {"model": str(model), "out": str(tmp_path / "runs"),
                                "tasks": ["fix-add"], **settings})
    result = execute_run(config, engine_factory=lambda p, c: engine, progress=False)
    assert result.status == "complete"
    db = open_run_db(result.run_dir)
    try:
        task = dict(db.execute("SELECT * FROM tasks").fetchone())
        steps = [dict(r) for r in db.execute("SELECT * FROM steps ORDER BY step")]
    finally:
        db.close()
    trajectory = [json.loads(line) for line in
                  (result.run_dir / "trajectories" / "fix-add.jsonl").read_text().splitlines()]
    return result.run_dir, task, steps, trajectory
